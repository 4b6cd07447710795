"""The types of gate rule checks: a handler per pair of corresponding elements, or the whole tree.

A rule's check is one of

- `operator_pairs(f)`, `f(pair: OperatorPair)`: called for each operator whose spec differs
  between the trees (added, removed or changed);
- `domain_pairs(f)`, `f(pair: DomainPair)`: called for each domain whose spec differs;
- `type_set_pairs(f)`, `f(pair: TypeSetPair)`: called for each type set that differs between two
  versions of a domain, with the old tree's operator versions naming it;
- a plain function of the `DiffContext` (a whole-tree handler: it may read anything, so nothing
  can be skipped for it; the form plugins were written in before the pair handlers).

The engine iterates, so the pairs a rule can see follow from its type, and so does what
`opset diff` must decode from its cache (`Reads`, read by `toolkit.compat.gate_fast`): a pair
whose two sides are equal is never handed to any handler, so an operator whose content digest
did not change needs no decoding unless some rule reads more than the pairs.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from toolkit.compat.engine import DiffContext, Hit
from toolkit.compat.pairs import DomainPair, OperatorPair, TypeSetPair

__all__ = [
    "GateCheck",
    "PairCheck",
    "Reads",
    "TreeHandler",
    "domain_pairs",
    "operator_pairs",
    "reads",
    "type_set_pairs",
]


class Reads(enum.IntEnum):
    """What of the two trees a check reads beside the domains, releases and options (which every
    check may read). Each value includes the ones before it."""

    CHANGED_PAIRS = 0  # the operators whose specs differ
    TYPE_SET_USERS = 1  # also every operator of a domain whose type sets differ
    TREE = 2  # anything


P = TypeVar("P", OperatorPair, DomainPair, TypeSetPair)
TreeHandler = Callable[[DiffContext], Iterable[Hit]]


@dataclass(frozen=True)
class PairCheck(Generic[P]):
    """A pair handler as a rule's check: called with the `DiffContext`, it hands the handler
    each pair of its kind whose sides differ, in the order of `pairs`."""

    handler: Callable[[P], Iterable[Hit]]
    reads: ClassVar[Reads] = Reads.CHANGED_PAIRS

    def pairs(self, ctx: DiffContext) -> Iterable[P]:
        """The pairs of the handler's kind whose sides differ."""
        raise NotImplementedError

    def __call__(self, ctx: DiffContext) -> Iterator[Hit]:
        for pair in self.pairs(ctx):
            yield from self.handler(pair)


class _OperatorPairs(PairCheck[OperatorPair]):
    def pairs(self, ctx: DiffContext) -> Iterable[OperatorPair]:
        return ctx.changed_operator_pairs


class _DomainPairs(PairCheck[DomainPair]):
    def pairs(self, ctx: DiffContext) -> Iterable[DomainPair]:
        return ctx.changed_domains


class _TypeSetPairs(PairCheck[TypeSetPair]):
    reads: ClassVar[Reads] = Reads.TYPE_SET_USERS

    def pairs(self, ctx: DiffContext) -> Iterable[TypeSetPair]:
        return ctx.changed_type_set_pairs


GateCheck = PairCheck[OperatorPair] | PairCheck[DomainPair] | PairCheck[TypeSetPair] | TreeHandler


def operator_pairs(handler: Callable[[OperatorPair], Iterable[Hit]]) -> PairCheck[OperatorPair]:
    """Make `handler` a check called once per operator that differs between the trees."""
    return _OperatorPairs(handler)


def domain_pairs(handler: Callable[[DomainPair], Iterable[Hit]]) -> PairCheck[DomainPair]:
    """Make `handler` a check called once per domain that differs between the trees."""
    return _DomainPairs(handler)


def type_set_pairs(handler: Callable[[TypeSetPair], Iterable[Hit]]) -> PairCheck[TypeSetPair]:
    """Make `handler` a check called once per type set that differs between the trees."""
    return _TypeSetPairs(handler)


def reads(check: object) -> Reads:
    """What `check` (a rule's check) reads: a pair handler says; anything else reads the tree."""
    return check.reads if isinstance(check, PairCheck) else Reads.TREE
