"""Querysets compiled once: the SQL of a fixed-shape query, run again with new values.

Django compiles a queryset's SQL afresh each time it is evaluated. For a query read on
every participant answer (a six-table join with ``select_related``, ``only`` and ``FOR
UPDATE``) the compilation alone cost 2.6 ms of the ~14 ms of CPU an answer took
(bench/profile_participant_request.py), more than executing it. Its SQL depends only on
the queryset's shape and the database, so :class:`CompiledQuery` compiles it once per
database and afterwards only swaps the values in. Rows become model instances the way
Django's own ``ModelIterable`` builds them (the compiler's converters and
``select_related`` populators), so callers get ordinary instances with their related
objects cached.

Written here because no maintained library caches compiled SQL for Django's ORM (the
caching packages cache results, which a locking read must never use). It relies on the
compiler attributes ``ModelIterable`` itself reads (``select``, ``klass_info``); the
participant tests run every answer through it on SQLite and PostgreSQL.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from inspect import getattr_static

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DEFERRED, Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.fields.files import FileDescriptor, ImageField, ImageFileDescriptor
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query import get_related_populators
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

from core.db.prepared import execute_prepared


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the value behind each placeholder, in order
    wrappers: tuple  # the type each is bound as, where the backend asks for one
    constants: tuple  # the fixed value of a placeholder without a name
    compiler: object
    model: type
    init_list: list[str]
    start: int
    end: int
    populators: list
    converters: dict
    build: Callable  # (db, the model's selected values) -> instance
    builders: dict  # id(populator) -> the same for its model, for each related populator


class CompiledQuery:
    """``build(**values)`` returns the queryset; ``samples`` are stand-in values, one per name.

    Each sample must be a plain ``str`` or ``int`` that appears nowhere else in the
    query's parameters, so that the compiled parameters can be traced back to names;
    ``build`` must depend on its arguments alone (its other parameters are kept as
    compiled). Calling the object with real values (same names) returns the list of
    instances.
    """

    def __init__(self, build: Callable[..., QuerySet], **samples: str | int):
        for name, value in samples.items():
            if type(value) not in (str, int):
                raise TypeError(f"sample {name!r} must be a str or an int")
        if len(set(samples.values())) != len(samples):
            raise ValueError("samples must be distinct")
        self._build = build
        self._samples = samples
        self._by_alias: dict[str, _Compiled] = {}

    def _compile(self, alias: str) -> _Compiled:
        queryset = self._build(**self._samples).using(alias)
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()  # also fills compiler.select and klass_info
        by_value = {value: name for name, value in self._samples.items()}
        names, wrappers, constants = [], [], []
        for param in params:
            sampled = isinstance(param, (str, int)) and param in by_value
            # A parameter no sample gave is a constant of the query's shape (the 1 of
            # ``position = current_position + 1``): build() depends on its arguments alone.
            names.append(by_value[param] if sampled else None)
            constants.append(None if sampled else param)
            # PostgreSQL's backend binds integers as typed values (psycopg's Int4, an int
            # subclass); the real values are wrapped the same way.
            wrappers.append(None if type(param) in (str, int) else type(param))
        if set(names) - {None} != set(self._samples):
            raise ValueError("every sample must appear in the compiled query")
        select, klass_info = compiler.select, compiler.klass_info
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        columns = [column[0] for column in select[: compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise ValueError("composite fields are not supported")
        model = klass_info["model"]
        init_list = [column[0].target.attname for column in select[start:end]]
        populators = get_related_populators(klass_info, select, alias)
        compiled = _Compiled(
            sql=sql,
            names=tuple(names),
            wrappers=tuple(wrappers),
            constants=tuple(constants),
            compiler=compiler,
            model=model,
            init_list=init_list,
            start=start,
            end=end,
            populators=populators,
            converters=compiler.get_converters(columns),
            build=_builder(model, init_list),
            builders={
                id(populator): _builder(populator.model_cls, populator.init_list)
                for populator in _all(populators)
            },
        )
        self._by_alias[alias] = compiled
        return compiled

    def __call__(self, *, using: str = DEFAULT_DB_ALIAS, **values) -> list:
        compiled = self._by_alias.get(using) or self._compile(using)
        params = [
            constant if name is None else values[name] if wrap is None else wrap(values[name])
            for name, wrap, constant in zip(
                compiled.names, compiled.wrappers, compiled.constants, strict=True
            )
        ]
        with connections[using].cursor() as cursor:
            execute_prepared(cursor, compiled.sql, params, alias=using)
            rows = cursor.fetchall()
        instances = []
        if compiled.converters:
            rows = compiled.compiler.apply_converters(rows, compiled.converters)
        shared: dict = {}
        for row in rows:
            instance = compiled.build(using, row[compiled.start : compiled.end])
            for populator in compiled.populators:
                _populate(populator, row, instance, shared, compiled.builders)
            instances.append(instance)
        return instances


def _all(populators):
    for populator in populators:
        yield populator
        yield from _all(populator.related_populators)


def _builder(model, init_list: list[str]) -> Callable:
    """``model.from_db(db, init_list, values)``, or what it would build, made faster.

    Django's ``from_db`` places the deferred fields on each call by looking up every field
    of the model in ``init_list``, a list: for a session's study (many fields, a few
    selected) that search was the largest part of building the instance. Here a table made
    once places them. Then ``Model.__init__`` sends ``pre_init`` and ``post_init`` and sets
    each value through ``setattr``; for a model whose fields all store a set value as it is
    (:func:`_plain`) and that no receiver listens to, that comes to the instance's
    ``__dict__`` holding its state and the selected values, which :func:`_plain_builder`
    fills directly. A model with a ``from_db`` of its own gets ``init_list`` and the values
    as selected.
    """
    fields = model._meta.concrete_fields
    if getattr(model.from_db, "__func__", None) is not Model.from_db.__func__:
        return lambda db, values: model.from_db(db, init_list, values)
    at = {name: index for index, name in enumerate(init_list)}
    deferred = len(init_list)  # the index of the DEFERRED marker appended to the values
    pick = operator.itemgetter(*(at.get(field.attname, deferred) for field in fields))
    if len(fields) == 1:
        ordinary = lambda db, values: model.from_db(db, init_list, (pick((*values, DEFERRED)),))  # noqa: E731
    else:
        ordinary = lambda db, values: model.from_db(db, init_list, pick((*values, DEFERRED)))  # noqa: E731
    return _plain_builder(model, init_list, ordinary) if _plain(model) else ordinary


# Descriptors whose __set__, on an instance with no related object cached yet, only
# stores the value in the instance's __dict__: Django's own for plain, foreign-key and
# file fields, and an image field's while the instance is being built (it reads the
# image's size only when a value is replaced). Any other may do more: the types are
# compared exactly, not with isinstance.
_PLAIN_DESCRIPTORS = (
    DeferredAttribute,
    ForeignKeyDeferredAttribute,
    FileDescriptor,
    ImageFileDescriptor,
)


def _plain(model) -> bool:
    """Whether ``Model.__init__`` would do no more than store each given value."""
    return model.__init__ is Model.__init__ and all(
        type(getattr_static(model, field.attname, None)) in _PLAIN_DESCRIPTORS
        for field in model._meta.concrete_fields
    )


def _sizers(model) -> list:
    """The ``post_init`` receivers Django itself connects for ``model``: each image field
    that stores its image's size in fields of the model fills them in (reading the image)
    when they are empty."""
    return [
        field.update_dimension_fields
        for field in model._meta.concrete_fields
        if isinstance(field, ImageField) and (field.width_field or field.height_field)
    ]


def _plain_builder(model, init_list: list[str], ordinary: Callable) -> Callable:
    """The instance ``ordinary`` builds, its ``__dict__`` filled directly.

    About a third of the read's CPU on the answer path went to ``Model.__init__`` (its signal
    sends and per-field ``setattr``) for the dozen objects each answer reads. Whenever a
    receiver other than the image fields' own listens to the model's ``pre_init`` or
    ``post_init``, checked on each call as Django's ``send`` does, ``ordinary`` builds it
    instead. The image fields' receivers are called directly, as ``post_init`` would.
    """
    names = tuple(init_list)
    new = object.__new__
    sizers = _sizers(model)

    def listened() -> bool:
        if pre_init.has_listeners(model):
            return True
        if not sizers:
            return post_init.has_listeners(model)
        # Django's own list of the live receivers (the one ``send`` walks): only the
        # image fields' may be on it.
        sync, asynchronous = post_init._live_receivers(model)
        return bool(asynchronous) or sync != sizers

    def build(db, values):
        if listened():
            return ordinary(db, values)
        instance = new(model)
        state = ModelState()
        state.adding = False
        state.db = db
        stored = instance.__dict__
        stored["_state"] = state
        stored.update(zip(names, values, strict=True))
        for sizer in sizers:
            sizer(instance)
        return instance

    return build


def _populate(populator, row, from_obj, shared: dict, builders: dict) -> None:
    """``populator.populate(row, from_obj)``, with each related row built once per query.

    The rows of one result often join the same related row (a session's three trials
    join one session and one study): Django builds a copy per row, this builds one
    object and hands it to every row, which costs a third of the instances and means a
    change made through one row (the session advanced) is seen through the others.
    Keyed by populator as well as primary key, since two paths to the same table may
    select different columns.
    """
    if populator.reorder_for_init:
        data = populator.reorder_for_init(row)
    else:
        data = row[populator.cols_start : populator.cols_end]
    pk = data[populator.pk_idx]
    if pk is None:
        obj = None
    else:
        key = (id(populator), pk)
        obj = shared.get(key)
        if obj is None:
            obj = builders[id(populator)](populator.db, data)
            for related in populator.related_populators:
                _populate(related, row, obj, shared, builders)
            shared[key] = obj
    populator.local_setter(from_obj, obj)
    if obj is not None:
        populator.remote_setter(obj, from_obj)
