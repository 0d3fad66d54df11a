"""HTML views: annotators' onboarding and work, researchers' project pages."""
