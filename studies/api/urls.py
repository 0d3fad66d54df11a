from studies.api import library_urls, model_eval_urls, participant_urls, results_urls, study_urls

urlpatterns = (
    library_urls.urlpatterns
    + study_urls.urlpatterns
    + participant_urls.urlpatterns
    + results_urls.urlpatterns
    + model_eval_urls.urlpatterns
)
