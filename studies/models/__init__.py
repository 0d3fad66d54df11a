from studies.models.library import Chart, ChartGroup, ChartSet, ManipulationType, Question
from studies.models.study import Study

__all__ = ["Chart", "ChartGroup", "ChartSet", "ManipulationType", "Question", "Study"]
