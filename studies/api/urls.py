from studies.api import library_urls, participant_urls, results_urls, study_urls

urlpatterns = (
    library_urls.urlpatterns
    + study_urls.urlpatterns
    + participant_urls.urlpatterns
    + results_urls.urlpatterns
)
