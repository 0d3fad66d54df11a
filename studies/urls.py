"""Researcher pages of the studies app: the chart library and study set-up."""

from studies import library_urls, model_eval_urls, results_urls, study_urls

app_name = "studies"

urlpatterns = (
    library_urls.urlpatterns
    + study_urls.urlpatterns
    + results_urls.urlpatterns
    + model_eval_urls.urlpatterns
)
