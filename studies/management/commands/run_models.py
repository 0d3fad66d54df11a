"""python manage.py run_models STUDY --base-url URL --model NAME [options]"""

import os
import re

from django.core.management.base import BaseCommand, CommandError

from studies.models import Study

KINDS = ("fact", "mind")


def _questions(text: str) -> tuple[str, ...]:
    kinds = [k.strip().lower() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise CommandError("--questions takes fact, mind or fact,mind.")
    return tuple(dict.fromkeys(kinds))


class _RawStream:
    """The command's stderr without the newline Django appends to each write (the bar redraws)."""

    def __init__(self, wrapper):
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        # No colour: Django styles stderr as errors, and this is progress.
        self.wrapper.write(text, style_func=lambda x: x, ending="")

    def flush(self) -> None:
        self.wrapper.flush()

    def isatty(self) -> bool:
        return self.wrapper.isatty()


class Command(BaseCommand):
    help = (
        "Ask a model every chart's FACT and MIND question through an OpenAI-compatible "
        "chat-completions endpoint, storing each reply as it arrives (a re-run asks only "
        "what is missing), then import the replies as the model's answers. The API key is "
        "read from an environment variable and never stored or printed."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("--base-url", help="e.g. https://api.openai.com/v1")
        parser.add_argument("--model", required=True, help="The model name the endpoint knows.")
        parser.add_argument(
            "--api-key-env",
            default="OPENAI_API_KEY",
            help="Environment variable holding the API key (default OPENAI_API_KEY).",
        )
        parser.add_argument(
            "--rate", help="Most requests to send, e.g. 60/min, 2/s or 1000/h (default: no limit)."
        )
        parser.add_argument(
            "--retries",
            type=int,
            default=5,
            help="Retries after a 429, 5xx, timeout or dropped connection (default 5).",
        )
        parser.add_argument(
            "--backoff",
            type=float,
            default=1.0,
            help="Seconds before the first retry, doubled for each further one (default 1).",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=120.0,
            help="Seconds to wait for a reply (default 120).",
        )
        parser.add_argument("--limit", type=int, help="Ask about at most N charts in this run.")
        parser.add_argument(
            "--questions", default="fact,mind", help="fact, mind or fact,mind (the default)."
        )
        parser.add_argument("--temperature", type=float, help="Sent only when given.")
        parser.add_argument(
            "--no-answer-format",
            action="store_true",
            help="Send FACT questions exactly as exported, without the line asking for a bare "
            "answer (the checker may then find replies unreadable).",
        )
        parser.add_argument(
            "--import-only",
            action="store_true",
            help="Send nothing; import the replies stored so far.",
        )

    def handle(self, *args, **options):
        study = Study.objects.filter(slug=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with the slug {options['study']!r}.")
        model = options["model"].strip()
        if not model:
            raise CommandError("--model must name a model.")
        if not options["import_only"]:
            self.ask(study, model, options)
        self.import_replies(study, model)

    def ask(self, study, model, options):
        from studies.services.model_runner.client import (
            BadBaseURL,
            ChatClient,
            EndpointError,
            RateLimiter,
            RetryPolicy,
            parse_rate,
        )
        from studies.services.model_runner.run import ChartImageError, ReplyRunner

        if not options["base_url"]:
            raise CommandError("--base-url is required (or use --import-only).")
        if options["retries"] < 0:
            raise CommandError("--retries must be at least 0.")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1.")
        if options["timeout"] <= 0 or options["backoff"] < 0:
            raise CommandError("--timeout must be above zero and --backoff not below zero.")
        limiter = None
        if options["rate"]:
            try:
                limiter = RateLimiter(parse_rate(options["rate"]))
            except ValueError as exc:
                raise CommandError(f"--rate: {exc}.") from None
        try:
            client = ChatClient(
                base_url=options["base_url"],
                api_key=self.api_key(options["api_key_env"]),
                timeout=options["timeout"],
                retry=RetryPolicy(retries=options["retries"], base_delay=options["backoff"]),
                limiter=limiter,
            )
        except BadBaseURL as exc:
            raise CommandError(exc.message) from None
        runner = ReplyRunner(
            study=study,
            model=model,
            client=client,
            kinds=_questions(options["questions"]),
            limit=options["limit"],
            answer_format=not options["no_answer_format"],
            temperature=options["temperature"],
            progress_stream=_RawStream(self.stderr),
        )
        try:
            summary = runner.run()
        except EndpointError as exc:
            raise CommandError(
                f"{exc.message}\nStopped: {runner.summary.describe()} "
                "Run the same command again to resume."
            ) from None
        except ChartImageError as exc:
            raise CommandError(str(exc)) from None
        except KeyboardInterrupt:
            raise CommandError(
                f"Interrupted: {runner.summary.describe()} Run the same command again to resume.",
                returncode=130,
            ) from None
        if not summary.charts:
            raise CommandError("The study has no charts.")
        self.stdout.write(f"{model} at {client.endpoint}: {summary.describe()}")

    def api_key(self, variable: str) -> str:
        # Name the variable only when it looks like one: a key pasted into
        # --api-key-env by mistake must not be echoed back.
        looks_like_a_name = re.fullmatch(r"[A-Z][A-Z0-9_]{0,63}", variable or "")
        named = variable if looks_like_a_name else "named by --api-key-env"
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable or ""):
            raise CommandError(
                "--api-key-env takes the name of an environment variable (like "
                "OPENAI_API_KEY), not the key itself."
            )
        key = os.environ.get(variable, "").strip()
        if not key:
            raise CommandError(
                f"The environment variable {named} is not set. Put the API key there "
                "(any non-empty value for an endpoint without keys)."
            )
        return key

    def import_replies(self, study, model):
        from studies.services.model_runner.run import replies_import

        result = replies_import(study=study, model=model)
        report = result.report
        if report.blocking or not report.imported:
            for problem in report.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"Nothing imported: {len(report.blocking or report.problems)} problem(s)."
            )
        for item in report.coverage:
            self.stdout.write(
                f"Imported {report.imported.get(item.model, 0)} answers of {item.model}: answered "
                f"{item.answered}/{item.total} charts (FACT {item.fact_answered}, "
                f"MIND {item.mind_answered})."
            )
            if item.missing:
                self.stdout.write(f"  no reply yet: {', '.join(item.missing)}")
        if result.notes:
            self.stdout.write(f"Notes on {len(result.notes)} answers:")
            for chart_id, notes in result.notes:
                self.stdout.write(f"  {chart_id}: {'; '.join(notes)}")
