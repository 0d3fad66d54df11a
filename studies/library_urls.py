"""Chart library pages (sets, groups, pairs, import, generator)."""

urlpatterns = []
