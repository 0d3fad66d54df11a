"""Researchers' quality pages: settings, gold (gold mode), rounds, the funnel, annotators."""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from annotation.models import GoldItem, Item, Project, ProjectMember, QualityPolicy
from annotation.selectors import work_categories
from annotation.selectors.quality import (
    answers_beside_gold,
    funnel,
    paused_annotators,
    quality_rows,
)
from annotation.selectors.rounds import round_rows
from annotation.selectors.standing import annotator_rounds
from annotation.services.annotator_decisions import annotator_decision
from annotation.services.quality import (
    ACTIONS,
    attempt_grant,
    gold_from_reference,
    gold_set,
    policy_for,
    policy_update,
    round_create,
)
from core.decorators import refusal_flashed, researcher_required


def _visible(request, slug: str) -> Project:
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


class PolicyForm(forms.ModelForm):
    class Meta:
        model = QualityPolicy
        fields = [
            "max_attempts", "retry_delay_minutes", "show_gold_after_round", "control_rate",
            "control_rule", "pause_threshold", "min_controls",
        ]  # fmt: skip


class RoundForm(forms.Form):
    title = forms.CharField(max_length=120)
    gold_items = forms.ModelMultipleChoiceField(queryset=GoldItem.objects.none())
    rule = forms.ChoiceField(choices=[("f1", "F1 on error labels"), ("accuracy", "Accuracy")])
    pass_mark = forms.FloatField(min_value=0, max_value=1, initial=0.6)
    items_per_attempt = forms.IntegerField(
        min_value=1,
        required=False,
        label="Captions per attempt",
        help_text="Fewer than the gold items chosen: each retry asks captions the annotator has "
        "not seen. Empty: every attempt asks them all.",
    )
    max_attempts = forms.IntegerField(
        min_value=1,
        max_value=10,
        required=False,
        label="Attempts",
        help_text="Attempts at this round. Empty: the project's attempts per round. Raising it "
        "re-opens the round for annotators who used every attempt; it can change at any time.",
    )

    def __init__(self, *args, project, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["gold_items"].queryset = project.gold_items.select_related("item")
        self.fields["gold_items"].label_from_instance = lambda g: g.item.external_id


@researcher_required
def dashboard(request, slug: str):
    project = _visible(request, slug)
    policy = policy_for(project)
    gold = list(project.gold_items.select_related("item").prefetch_related("rounds"))
    return render(
        request,
        "annotation/quality/dashboard.html",
        {
            "project": project,
            "policy": policy,
            "policy_form": PolicyForm(instance=policy),
            # Its own ids: the settings form on the same page has fields of the same names.
            "round_form": RoundForm(project=project, auto_id="round_%s"),
            "rounds": round_rows(project),
            "gold": gold,
            "funnel": funnel(project),
            "rows": quality_rows(project),
            "paused": paused_annotators(project),
            "actions": ACTIONS,
            "has_reference": project.items.filter(reference__isnull=False).exists(),
            "items": project.items.filter(gold__isnull=True).order_by("position")[:200],
        },
    )


@require_POST
@researcher_required
def settings_edit(request, slug: str):
    project = _visible(request, slug)
    form = PolicyForm(request.POST, instance=policy_for(project))
    if form.is_valid():
        _policy, reopened = policy_update(
            project=project, changes=form.cleaned_data, actor=request.user
        )
        messages.success(request, "Quality settings saved.")
        if reopened:
            names = ", ".join(reopened)
            messages.info(request, f"Rounds re-opened under the new attempt limit for: {names}.")
    else:
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
    return redirect("annotation:quality", slug=slug)


@require_POST
@researcher_required
@refusal_flashed("annotation:quality", "slug")
def round_new(request, slug: str):
    project = _visible(request, slug)
    form = RoundForm(request.POST, project=project)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
        return redirect("annotation:quality", slug=slug)
    created = round_create(project=project, actor=request.user, **form.cleaned_data)
    messages.success(request, f"Round {created.position} created.")
    return redirect("annotation:quality", slug=slug)


@require_POST
@researcher_required
def gold_reference(request, slug: str):
    project = _visible(request, slug)
    count = gold_from_reference(project=project, actor=request.user)
    messages.success(
        request, f"{count} item{'s' if count != 1 else ''} with reference labels marked as gold."
    )
    return redirect("annotation:quality", slug=slug)


@researcher_required
def gold_edit(request, slug: str, pk: int):
    """Gold mode: label an item in the annotators' interface; the labels become its gold."""
    project = _visible(request, slug)
    item = get_object_or_404(Item, project=project, pk=pk)
    gold = GoldItem.objects.filter(item=item).first()
    if request.method == "POST":
        if gold is None:
            messages.error(request, "Save the gold labels first, then the explanation.")
        else:
            gold_set(project=project, item=item, labels=gold.labels, actor=request.user,
                     explanation=request.POST.get("explanation", "").strip())  # fmt: skip
            messages.success(request, "Explanation saved.")
        return redirect("annotation:quality-gold", slug=slug, pk=pk)
    categories = work_categories(project)
    labels = gold.labels if gold else [[] for _ in item.sentences]
    rows = [
        {"number": n + 1, "text": t, "buttons": [(c, c.key in labels[n]) for c in categories]}
        for n, t in enumerate(item.sentences)
    ]
    api = f"/api/v1/projects/{project.slug}/gold/{item.pk}/"
    state = {
        "assignment": None,
        "sentences": len(item.sentences),
        "categories": [{"key": c.key, "shortcut": c.shortcut, "name": c.name} for c in categories],
        "draft": labels,
        "activeSeconds": 0,
        "expiresAt": (timezone.now().replace(year=timezone.now().year + 1)).isoformat(),
        "urls": {
            "draft": api + "draft/",
            "submit": api,
            "next": reverse("annotation:quality-gold", args=[slug, pk]),
        },
    }
    return render(
        request,
        "annotation/quality/gold_edit.html",
        {
            "project": project,
            "item": item,
            "gold": gold,
            "rows": rows,
            "categories": categories,
            "state": state,
            "heading": f"Gold labels for {item.external_id}",
            "subheading": "Gold mode: the labels you submit become this item's gold.",
            "submit_label": "Save gold",
        },
    )


@researcher_required
def annotator_detail(request, slug: str, user_id: int):
    project = _visible(request, slug)
    member = get_object_or_404(
        ProjectMember.objects.select_related("annotator"), project=project, annotator_id=user_id
    )
    rows = [r for r in quality_rows(project) if r["annotator"].pk == user_id]
    names = {c.key: c.name for c in work_categories(project)}
    return render(
        request,
        "annotation/quality/annotator.html",
        {
            "project": project,
            "annotator": member.annotator,
            "row": rows[0],
            "attempts": answers_beside_gold(project, member.annotator),
            "rounds": annotator_rounds(project=project, annotator=member.annotator).rounds,
            "names": names,
            "actions": ACTIONS,
        },
    )


@require_POST
@researcher_required
def attempt_grant_view(request, slug: str, user_id: int):
    """Allow an annotator another attempt at a round they failed (reason required, audited)."""
    project = _visible(request, slug)
    member = get_object_or_404(
        ProjectMember.objects.select_related("annotator"), project=project, annotator_id=user_id
    )
    try:
        position = int(request.POST.get("round", ""))
    except ValueError:
        messages.error(request, "Choose a round.")
        return redirect("annotation:quality-annotator", slug=slug, user_id=user_id)
    try:
        attempt_grant(project=project, annotator=member.annotator, position=position,
                      reason=request.POST.get("reason", ""), actor=request.user)  # fmt: skip
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request, f"{member.annotator.username} may take round {position} once more."
        )
    return redirect("annotation:quality-annotator", slug=slug, user_id=user_id)


@require_POST
@researcher_required
def annotator_decide_view(request, slug: str, user_id: int):
    project = _visible(request, slug)
    member = get_object_or_404(ProjectMember, project=project, annotator_id=user_id)
    try:
        annotator_decision(project=project, annotator=member.annotator, action=request.POST.get("action", ""),
                         reason=request.POST.get("reason", ""), actor=request.user)  # fmt: skip
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request, f"{member.annotator.username}: {request.POST['action']} recorded."
        )
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("annotation:quality", args=[slug])
    return redirect(back or reverse("annotation:quality", args=[slug]))
