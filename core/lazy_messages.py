"""Django's messages middleware, with each request's message storage made when first used.

Django's MessageMiddleware builds the storage for every request: the fallback storage
with its cookie and session storages inside. The participant's and annotator's JSON
requests never show or leave a message, and building it was 1.6% of a web worker's time in
a classroom's burst (py-spy, 4 December). Here the request holds a lazy object that
builds the storage on its first use (a view adding a message, a template listing them),
and a response whose request never used it has nothing to store. Django offers no lazy
storage of its own, hence this subclass.
"""

from __future__ import annotations

from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.utils.functional import SimpleLazyObject, empty


class LazyMessageMiddleware(MessageMiddleware):
    def process_request(self, request):
        request._messages = SimpleLazyObject(lambda: default_storage(request))

    def process_response(self, request, response):
        messages = getattr(request, "_messages", None)
        if isinstance(messages, SimpleLazyObject) and messages._wrapped is empty:
            return response  # never built: nothing was added or read
        return super().process_response(request, response)
