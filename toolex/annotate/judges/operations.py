"""What kind of operation a tool performs, read from the verbs of its name (or, where its name holds none,
the first words of its description).

Opposite operations on one object (reading health data and recording it, adding a duration and subtracting
one) read alike to a sentence encoder, yet one never replaces the other. The kind of operation is a
distinction every tool library shares, so it carries across libraries where similarity scales do not.
:func:`operation_match` is +1 when two tools do the same kind of operation, -1 when they do different kinds
and 0 when either is unknown.
"""

from __future__ import annotations

import re

from toolex.data.records import Tool

#: Kind of operation → the verbs (lower-case word tokens) that name it. A verb names one kind only.
_VERBS = {
    "read": "get fetch list search find query retrieve lookup look show view read browse check describe "
            "inspect obtain load lists gets fetches searches finds queries retrieves returns return discover "
            "explore locate scan monitor track watch poll download export extract",
    "create": "create add make new insert post book reserve schedule register upload generate build open "
              "start launch init initialize compose write record log save store submit publish subscribe "
              "enroll buy purchase order rent creates adds generates",
    "change": "update edit modify change set rename move patch replace configure adjust toggle enable "
              "disable assign merge reorder resize restore reset renew extend upgrade updates sets",
    "delete": "delete remove cancel clear drop unsubscribe archive revoke destroy terminate erase purge "
              "close stop kill deletes removes",
    "compute": "calculate compute convert translate analyze analyse estimate predict classify summarize "
               "summarise evaluate measure count compare validate verify parse format encode decode "
               "transcribe detect recognize recognise score rank sort filter subtract multiply divide sum "
               "average solve optimize simulate",
    "send": "send notify email message call share forward reply transfer pay invite alert text tweet "
            "broadcast sends",
    "run": "run execute play invoke trigger deploy install test apply perform process render navigate click "
           "type press scroll screenshot capture",
}
OPERATIONS: dict[str, frozenset[str]] = {kind: frozenset(verbs.split()) for kind, verbs in _VERBS.items()}
_KIND_OF = {verb: kind for kind, verbs in OPERATIONS.items() for verb in verbs}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
#: Words of the description read when the name holds no verb.
DESCRIPTION_WORDS = 6


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z]+", _CAMEL.sub(" ", text).lower())


def operation_of(tool: Tool) -> str | None:
    """The kind of operation of ``tool`` (a key of :data:`OPERATIONS`), or None when neither its name nor the
    first words of its description hold a known verb."""
    for word in _tokens(tool.name):
        if word in _KIND_OF:
            return _KIND_OF[word]
    for word in _tokens(tool.description)[:DESCRIPTION_WORDS]:
        if word in _KIND_OF:
            return _KIND_OF[word]
    return None


def operation_match(candidate: Tool, reference: Tool) -> float:
    """+1: the same kind of operation; -1: different kinds; 0: either unknown."""
    a, b = operation_of(candidate), operation_of(reference)
    if a is None or b is None:
        return 0.0
    return 1.0 if a == b else -1.0
