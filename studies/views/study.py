"""Researcher pages for a study: set-up, pairs, attention checks, status and live monitoring."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from core.confirm import confirm_delete_page, refusal_of
from core.decorators import refusal_flashed, researcher_required
from studies.answer_types import get_type
from studies.forms import StudyCreateForm
from studies.models import AnswerType, AttentionCheck, ChartSet, Study
from studies.selectors import readiness
from studies.selectors import study as sel
from studies.selectors.monitor import study_monitor
from studies.selectors.timing import study_expected_minutes
from studies.services import sessions as session_svc
from studies.services import study as setup
from studies.services import study_create as create_study
from studies.services.sessions.platform import LINK_SUFFIX
from studies.starter_texts import starter_texts
from studies.views.study_forms import GROUPS, AttentionCheckForm, StudySettingsForm, VideoForm


def _error_text(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return " ".join(m for msgs in exc.message_dict.values() for m in msgs)
    return " ".join(exc.messages)


def _study(request, slug: str) -> Study:
    return sel.study_get(user=request.user, slug=slug)


# ------------------------------------------------------------------ list, create, detail


@researcher_required
def study_list(request):
    studies = sel.studies_for_user(user=request.user)
    return render(request, "studies/study/list.html", {"studies": studies})


@researcher_required
def study_create(request):
    form = StudyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        study = create_study(owner=request.user, **form.cleaned_data)
        messages.success(request, f"Study “{study.title}” created. Now choose its pairs and texts.")
        return redirect("studies:detail", slug=study.slug)
    return render(request, "studies/study_form.html", {"form": form})


def _fix_url(study: Study, item: readiness.ReadinessItem) -> str:
    """The page, and on it the field, where a blocker or a warning is fixed."""
    if item.fix == readiness.PAIRS:
        return reverse("studies:pairs", args=[study.slug])
    if item.fix == readiness.CHECKS:
        return reverse("studies:checks", args=[study.slug])
    if item.fix == readiness.PAIR:
        return reverse("studies:pair-detail", args=item.fix_args)
    if item.fix == readiness.TRANSLATIONS:
        return reverse("studies:languages", args=[study.slug]) + f"?lang={item.fix_args[0]}"
    return reverse("studies:edit", args=[study.slug]) + f"#id_{item.fix}"


def _readiness_rows(study: Study) -> tuple[list[dict], list[dict]]:
    if study.status not in (Study.Status.DRAFT, Study.Status.PILOT):
        return [], []
    rows = [
        [{"message": item.message, "url": _fix_url(study, item)} for item in items]
        for items in (readiness.study_blockers(study), readiness.study_warnings(study))
    ]
    return rows[0], rows[1]


@researcher_required
def study_detail(request, slug: str):
    """The study's overview and live monitoring."""
    study = _study(request, slug)
    session_svc.sessions_expire_overdue(study=study)
    monitor = study_monitor(study)
    page = Paginator(monitor.rows, 50).get_page(request.GET.get("page"))
    for row in page.object_list:
        row.release_problem = session_svc.session_release_problem(row.session)
    link = request.build_absolute_uri(reverse("participate:welcome", args=[study.slug]))
    blockers, warnings = _readiness_rows(study)
    context = {
        "study": study,
        "monitor": monitor,
        "page": page,
        "blockers": blockers,
        "warnings": warnings,
        "transitions": [Study.Status(s) for s in setup.allowed_transitions(study)],
        "study_transitions": list(setup.allowed_transitions(study)),
        "participant_link": link + LINK_SUFFIX.get(study.platform, ""),
        "pair_count": study.study_pairs.count(),
        "expected_minutes": study_expected_minutes(study),
        "check_count": study.attention_checks.count(),
        "auto_refresh": request.GET.get("live") == "1",
    }
    return render(request, "studies/study/detail.html", context)


def _value_text(trial) -> str:
    """A stored answer as the researcher reads it: the chosen option's text, the ranking, the number."""
    response = getattr(trial, "response", None)
    if response is None or response.value is None:
        return ""
    answer_type, options, _key, _tol = sel.trial_spec(trial)
    return get_type(answer_type).display(response.value, options)


@researcher_required
def study_session(request, slug: str, pk: int):
    study = _study(request, slug)
    session = sel.session_for_researcher(study=study, pk=pk)
    trials = list(sel.session_trials(session))
    numbers = sel.check_numbers(study)
    for trial in trials:
        trial.value_text = _value_text(trial)
        trial.check_number = numbers.get(trial.attention_check_id)
    return render(
        request,
        "studies/study/session.html",
        {
            "study": study,
            "session": session,
            "trials": trials,
            "release_problem": session_svc.session_release_problem(session),
        },
    )


@researcher_required
@require_POST
def study_session_release(request, slug: str, pk: int):
    """Let a stuck participant's platform id start again; the old session is kept as abandoned."""
    study = _study(request, slug)
    try:
        session = session_svc.session_release(
            study=study, session_id=pk, user=request.user, reason=request.POST.get("reason", "")
        )
    except ValidationError as exc:
        messages.error(request, "The id was not released: " + _error_text(exc))
    else:
        messages.success(
            request,
            f"Released {session.external_id}: their next start with this id begins a new "
            "session. The old session is kept as abandoned.",
        )
    if request.POST.get("back") == "session":
        return redirect("studies:session", slug=study.slug, pk=pk)
    return redirect("studies:detail", slug=study.slug)


# ------------------------------------------------------------------ set-up


@researcher_required
@require_http_methods(["GET", "POST"])
def study_edit(request, slug: str):
    study = _study(request, slug)
    form = StudySettingsForm(study=study)
    video_form = VideoForm()
    if request.method == "POST":
        action = request.POST.get("action", "settings")
        if action == "remove-video":
            # A settings page loaded before removal got its own confirmation page still posts
            # this: send it there rather than read the post as settings.
            return redirect("studies:video-remove", slug=study.slug)
        try:
            if action == "video":
                video_form = VideoForm(request.POST, request.FILES)
                if video_form.is_valid():
                    setup.study_video_set(
                        study=study, upload=video_form.cleaned_data["video"], actor=request.user
                    )
                    messages.success(request, "Video saved.")
                    return redirect("studies:edit", slug=study.slug)
            else:
                form = StudySettingsForm(request.POST, study=study)
                if form.is_valid():
                    setup.study_update(study=study, actor=request.user, **form.cleaned_data)
                    messages.success(request, "Settings saved.")
                    return redirect("studies:detail", slug=study.slug)
        except ValidationError as exc:
            target = video_form if action == "video" else form
            if hasattr(exc, "error_dict"):
                for field, errors in exc.message_dict.items():
                    name = field if field in target.fields else None
                    if field == "instructions_video":
                        name = "video"
                    for error in errors:
                        target.add_error(name, error)
            else:
                target.add_error(None, exc)
    starters = starter_texts(study)
    groups = [
        (legend, [(form[name], starters.get(name)) for name in names]) for legend, names in GROUPS
    ]
    return render(
        request,
        "studies/study/edit.html",
        {"study": study, "form": form, "groups": groups, "video_form": video_form},
    )


@researcher_required
@require_http_methods(["GET", "POST"])
def study_video_remove(request, slug: str):
    """GET: what removing the instructions video means; POST: remove it."""
    study = _study(request, slug)
    if request.method == "POST":
        setup.study_video_clear(study=study, actor=request.user)
        messages.success(request, "Video removed.")
        return redirect("studies:edit", slug=study.slug)
    context = {
        "study": study,
        "heading": "Remove the instructions video?",
        "intro": f"Instructions of “{study.title}”",
        "facts": [("Video", study.instructions_video.name.rsplit("/", 1)[-1])]
        if study.instructions_video
        else [],
        "consequences": [
            "The file is deleted; participants who start from now on read the instructions "
            "text only.",
            "Upload it again on the settings page to bring it back.",
        ],
        "problem": "" if study.instructions_video else "This study has no instructions video.",
        "button": "Remove the video",
        "cancel_url": reverse("studies:edit", args=[study.slug]),
        "back_label": "Back to the settings",
    }
    return confirm_delete_page(request, context)


@researcher_required
@require_http_methods(["GET", "POST"])
def study_pairs(request, slug: str):
    study = _study(request, slug)
    chart_sets = ChartSet.objects.visible_to(request.user).order_by("title")
    wanted = request.POST.get("chart_set") or request.GET.get("set")
    chart_set = None
    if wanted:
        chart_set = chart_sets.filter(slug=wanted).first()
        if chart_set is None:
            raise Http404("No such chart set.")
    elif study.chart_set_id:
        chart_set = chart_sets.filter(pk=study.chart_set_id).first()
    elif len(chart_sets) == 1:
        chart_set = chart_sets[0]
    locked = sel.study_design_locked(study)
    if request.method == "POST" and chart_set is not None:
        if request.POST.get("all"):
            ids = sel.complete_pair_ids(chart_set)
        else:
            ids = [q for q in request.POST.getlist("questions") if q.isdigit()]
        try:
            pairs = setup.study_pairs_set(
                study=study,
                chart_set=chart_set,
                question_ids=ids,
                actor=request.user,
                replace=bool(request.POST.get("replace")),
            )
        except setup.PairsWouldBeReplaced as exc:
            # A separate step, not a script's confirm(): the same choice is sent again with
            # replace=1 only when the researcher says so here.
            context = {
                "study": study,
                "chart_set": chart_set,
                "dropped": exc.dropped,
                "use_all": bool(request.POST.get("all")),
                "question_ids": ids,
                "kept": len(ids) if not request.POST.get("all") else None,
            }
            return render(request, "studies/study/pairs_confirm.html", context)
        except ValidationError as exc:
            messages.error(request, _error_text(exc))
        else:
            # Back to this page, whose first panel lists what was chosen: after
            # "Use every complete pair" the researcher sees which pairs that was.
            n = len(pairs)
            if n:
                messages.success(request, f"Pairs saved: the study uses {n} pair{pluralize(n)}.")
            else:
                # Saved, as asked (clearing the choice is allowed), but never said as a success.
                messages.warning(
                    request,
                    "No pairs chosen: the study has no charts now. Tick at least one pair before "
                    "its pilot or launch.",
                )
            url = reverse("studies:pairs", args=[study.slug]) + f"?set={chart_set.slug}"
            return redirect(url)
    chosen = set(study.study_pairs.values_list("question_id", flat=True))
    rows = []
    if chart_set is not None:
        for question in sel.chart_set_pairs(chart_set):
            charts = {c.version: c for c in question.charts.all()}
            rows.append(
                {
                    "question": question,
                    "charts": [charts.get(1), charts.get(2)],
                    "complete": question.has_both_charts,
                    "chosen": question.id in chosen,
                }
            )
    context = {
        "study": study,
        "chosen_pairs": list(sel.study_pair_questions(study)),
        "chart_sets": chart_sets,
        "chart_set": chart_set,
        "rows": rows,
        "locked": locked,
    }
    return render(request, "studies/study/pairs.html", context)


@researcher_required
@require_http_methods(["GET", "POST"])
def study_checks(request, slug: str):
    study = _study(request, slug)
    form = AttentionCheckForm(
        initial={"kind": AttentionCheck.Kind.INSTRUCTED, "answer_type": AnswerType.MULTIPLE_CHOICE}
    )
    if request.method == "POST":
        form = AttentionCheckForm(request.POST, request.FILES)
        if form.is_valid():
            data = dict(form.cleaned_data)
            image = data.pop("image")
            data["options"] = [line for line in data["options"].splitlines() if line.strip()]
            try:
                setup.attention_check_create(
                    study=study, actor=request.user, image=image.read() if image else None, **data
                )
            except ValidationError as exc:
                for field, errors in getattr(exc, "message_dict", {None: exc.messages}).items():
                    for error in errors:
                        form.add_error(field if field in form.fields else None, error)
            else:
                messages.success(request, "Attention check added.")
                return redirect("studies:checks", slug=study.slug)
    context = {
        "study": study,
        "checks": sel.attention_checks_for(study),
        "form": form,
        "locked": sel.study_design_locked(study),
    }
    return render(request, "studies/study/checks.html", context)


@researcher_required
@require_http_methods(["GET", "POST"])
def study_check_delete(request, slug: str, pk: int):
    """GET: what deleting the check means (or why it cannot be); POST: delete it."""
    study = _study(request, slug)
    check = get_object_or_404(AttentionCheck, study=study, pk=pk)
    if request.method == "POST":
        problem = refusal_of(lambda: setup.attention_check_delete(check=check, actor=request.user))
        if not problem:
            messages.success(request, "Attention check deleted.")
            return redirect("studies:checks", slug=study.slug)
    else:
        problem = setup.attention_check_delete_problem(check)
    left, allowed = study.attention_checks.count() - 1, study.max_attention_failures
    kind = "Sanity chart" if check.kind == AttentionCheck.Kind.SANITY else "Instructed response"
    context = {
        "study": study,
        "heading": f"Delete attention check {sel.check_numbers(study)[check.pk]}?",
        "intro": f"{kind} in “{study.title}”",
        "facts": [
            ("Prompt", check.prompt),
            ("Answer", f"{check.get_answer_type_display()}: {check.answer_key}"),
            ("Position", check.position or "random"),
        ],
        "consequences": [
            "Sessions that start from now on will not see it; no session has been shown it yet.",
            f"The study will have {left} attention check{pluralize(left)} left; the exclusion "
            f"rule still allows {allowed} failure{pluralize(allowed)}.",
            "It cannot be undone: add the check again to get it back.",
        ],
        "problem": problem,
        "button": "Delete the check",
        "cancel_url": reverse("studies:checks", args=[study.slug]),
        "back_label": "Back to the attention checks",
    }
    return confirm_delete_page(request, context)


@researcher_required
@require_POST
def study_status(request, slug: str):
    study = _study(request, slug)
    try:
        setup.study_status_change(
            study=study,
            status=request.POST.get("status", ""),
            actor=request.user,
            confirm_warnings=request.POST.get("confirm_warnings") == "1",
        )
    except setup.WarningsNotConfirmed:
        messages.error(
            request,
            "The status did not change: read the warnings below and tick “Go ahead despite "
            "the warnings” first.",
        )
        return redirect(reverse("studies:detail", args=[study.slug]) + "#ready-heading")
    except ValidationError as exc:
        messages.error(request, "The status did not change: " + _error_text(exc))
    else:
        now = {"draft": "a draft again", "pilot": "in pilot"}.get(study.status, study.status)
        messages.success(request, f"The study is now {now}.")
    return redirect("studies:detail", slug=study.slug)


@researcher_required
@require_POST
@refusal_flashed("studies:detail", "slug")
def study_preview(request, slug: str):
    study = _study(request, slug)
    result = session_svc.session_start(
        study=study,
        identity=session_svc.Identity(platform=study.platform),
        preview=True,
        language=request.POST.get("lang", ""),
    )
    return redirect("participate:session", token=result.session.token)


@researcher_required
@require_http_methods(["GET", "POST"])
def study_clear_tests(request, slug: str):
    """GET: how many pilot and preview sessions and answers would go; POST: delete them."""
    study = _study(request, slug)
    if request.method == "POST":
        count = setup.study_test_sessions_clear(study=study, actor=request.user)
        messages.success(
            request, f"Deleted {count} pilot and preview session{'s' if count != 1 else ''}."
        )
        return redirect("studies:detail", slug=study.slug)
    tests = sel.study_test_sessions(study)
    context = {
        "study": study,
        "heading": "Delete the pilot and preview sessions?",
        "intro": f"Test sessions of “{study.title}”",
        "facts": [
            ("Pilot sessions", tests.pilot),
            ("Preview sessions", tests.preview),
            ("Their answers", tests.answers),
        ],
        "consequences": [
            f"The {tests.sessions} session{pluralize(tests.sessions)} and their "
            f"{tests.answers} answer{pluralize(tests.answers)} are deleted for good; an "
            "exclusion rate the planner took from the pilot goes with them.",
            "Live participants and their answers are not touched.",
            "Afterwards the attention checks can be deleted again (if no live participant "
            "has started).",
        ],
        "problem": "" if tests.sessions else "This study has no pilot or preview sessions.",
        "button": f"Delete {tests.sessions} session{pluralize(tests.sessions)}",
        "cancel_url": reverse("studies:detail", args=[study.slug]),
        "back_label": "Back to the study",
    }
    return confirm_delete_page(request, context)
