"""The demo's published password never reaches production, and the demo researcher is no admin."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.demo_accounts import DEMO_PASSWORD
from core.models import User
from core.security import refuse_demo_passwords_in_production
from demo.management.commands.load_demo import demo_account

pytestmark = pytest.mark.django_db


def test_production_refuses_to_start_with_a_demo_password_in_use(settings):
    settings.DEBUG = False
    user = demo_account("researcher", User.Role.RESEARCHER)
    annotator = demo_account("annotator2", User.Role.ANNOTATOR)
    User.objects.create_user(username="someone-else", password=DEMO_PASSWORD)  # not a demo name
    with pytest.raises(ImproperlyConfigured, match=r"password: annotator2, researcher\. Give"):
        refuse_demo_passwords_in_production()

    for account in (user, annotator):
        account.set_password("a-new-long-private-pass")
        account.save()
    refuse_demo_passwords_in_production()  # starts


def test_the_demo_password_is_fine_in_debug(settings):
    settings.DEBUG = True
    demo_account("researcher", User.Role.RESEARCHER)
    refuse_demo_passwords_in_production()
