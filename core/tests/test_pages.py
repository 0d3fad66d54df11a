import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import ProjectMember
from annotation.services import project_create
from core.models import User


@pytest.mark.django_db
def test_the_landing_page_invites_sign_in(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Sign in" in response.content


@pytest.mark.django_db
def test_a_researcher_signs_in_and_sees_empty_states_that_say_what_to_do(
    client, researcher, password
):
    response = client.post(
        "/login/", {"username": researcher.username, "password": password}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/researcher/"
    assert b"No studies yet." in response.content
    assert b"No annotation projects yet." in response.content
    assert b"API tokens" in response.content  # role-aware navigation


@pytest.mark.django_db
def test_a_wrong_password_says_so_plainly(client, researcher):
    response = client.post("/login/", {"username": researcher.username, "password": "nope"})
    assert response.status_code == 200
    assert b"do not match an account" in response.content


@pytest.mark.django_db
def test_researchers_create_studies_and_projects_from_the_home_page(client, researcher, password):
    client.login(username=researcher.username, password=password)
    client.post("/studies/new/", {"title": "Axis study", "description": ""})
    client.post("/annotation/projects/new/", {"title": "Caption errors", "description": ""})
    page = client.get("/researcher/")
    assert b"Axis study" in page.content and b"Caption errors" in page.content


@pytest.mark.django_db
def test_researcher_home_shows_only_own_and_shared_work(
    client, researcher, other_researcher, password
):
    project_create(owner=other_researcher, title="Someone else's project")
    client.login(username=researcher.username, password=password)
    assert b"Someone else" not in client.get("/researcher/").content


@pytest.mark.django_db
def test_an_invite_link_signs_up_an_annotator_and_joins_the_project(client, researcher):
    project = project_create(owner=researcher, title="Caption errors")
    response = client.post(
        f"/annotation/join/{project.invite_code}/",
        {
            "username": "newcomer",
            "email": "",
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
        follow=True,
    )
    assert response.status_code == 200
    user = User.objects.get(username="newcomer")
    assert user.role == User.Role.ANNOTATOR
    assert ProjectMember.objects.filter(project=project, annotator=user).exists()
    assert b"Caption errors" in response.content


@pytest.mark.django_db
def test_an_invite_link_tells_a_member_they_are_in_already(client, researcher, annotator):
    project = project_create(owner=researcher, title="Caption errors")
    client.force_login(annotator)
    url = f"/annotation/join/{project.invite_code}/"
    join = client.get(url).content.decode()
    assert "Join as" in join  # not a member yet: the page offers to join
    assert "You joined" in client.post(url, follow=True).content.decode()
    for response in (client.get(url, follow=True), client.post(url, follow=True)):
        page = response.content.decode()
        assert "You are already in “Caption errors”." in page and "Join as" not in page
        assert "You joined" not in page
    assert ProjectMember.objects.filter(project=project, annotator=annotator).count() == 1


@pytest.mark.django_db
def test_a_bad_invite_code_is_a_friendly_page(client):
    response = client.get("/annotation/join/not-a-code/")
    assert response.status_code == 404
    assert b"This invite link is not valid" in response.content


@pytest.mark.django_db
def test_sign_up_with_a_taken_username_keeps_the_form_with_a_message(client, researcher, annotator):
    project = project_create(owner=researcher, title="P")
    response = client.post(
        f"/annotation/join/{project.invite_code}/",
        {
            "username": annotator.username,
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
    )
    assert response.status_code == 200
    assert b"already exists" in response.content
    assert User.objects.filter(username=annotator.username).count() == 1


@pytest.mark.django_db
def test_createresearcher_creates_a_researcher_account():
    call_command("createresearcher", "mira", "--password", "a-long-pass-phrase", "--no-input")
    assert User.objects.get(username="mira").is_researcher


@pytest.mark.django_db
def test_createresearcher_refuses_a_weak_password():
    with pytest.raises(CommandError):
        call_command("createresearcher", "mira", "--password", "123", "--no-input")
    assert not User.objects.filter(username="mira").exists()
