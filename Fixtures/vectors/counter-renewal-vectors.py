#!/usr/bin/env python3
"""Writes counter-renewal-vectors.json: how a counter answers an old card from the renewals its trust data holds.

Each case takes a signed card from card-token-vectors.json (by id, verified there at the same `now` with the same
keys) and gives the counter's revocation list and renewal lists (a whole list, then deltas, applied in order as a
counter syncs them); the expected answer is the counter's code (`valid` when a renewal answers) and, when a renewal
answers, the paid-until it shows. Both counters (peez counter in Swift, the web counter in Chromium) run them.

    python3 Fixtures/vectors/counter-renewal-vectors.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
cards = {v["id"]: v for v in json.load(open(os.path.join(HERE, "card-token-vectors.json"), encoding="utf-8"))["vectors"]}
NOW = cards["expired"]["now"]
DAY, LEEWAY = 86400, 300
MEMBER = "PEEZ-20251103-00002"
ISSUED = cards["expired"]["expected"]["iat"]  # every card used here was issued then


def entry(paid_until=NOW + 30 * DAY, renewed_at=NOW - 2 * DAY, member=MEMBER):
    return {"membership_id": member, "paid_until": paid_until, "renewed_at": renewed_at}


def case(id, description, card, renewals, expected, paid_until=None, revocations=None):
    return {
        "id": id, "description": description, "card": card, "now": NOW,
        "revocations": revocations or {"token_ids": [], "members": {}},
        "renewals": renewals,
        "expected": {"code": expected, **({"paid_until": paid_until} if paid_until is not None else {})},
    }


C = [
    case("renewed-after-expired-card", "an expired card whose member paid at another shop since it was issued: VALID until the renewal's end",
         "expired", [{"entries": [entry()]}], "valid", NOW + 30 * DAY),
    case("renewed-unpaid-card", "a card issued before the member's first months were sold (no paid time on its face)",
         "no-paid-period", [{"entries": [entry(renewed_at=NOW - 50)]}], "valid", NOW + 30 * DAY),
    case("renewal-before-card", "the sale came before the card was issued: the card already shows it, the renewal says nothing",
         "expired", [{"entries": [entry(renewed_at=ISSUED)]}], "expired"),
    case("renewal-of-another-member", "a renewal of someone else", "expired",
         [{"entries": [entry(member="PEEZ-20251103-00003")]}], "expired"),
    case("renewal-ended", "the renewed time ended beyond the clock tolerance", "expired-long-ago",
         [{"entries": [entry(paid_until=NOW - LEEWAY - 1, renewed_at=NOW - 40 * DAY)]}], "expired"),
    case("renewal-in-the-future", "a sale recorded later than now (beyond the tolerance) does not count yet", "expired",
         [{"entries": [entry(renewed_at=NOW + LEEWAY + 1, paid_until=NOW + 40 * DAY)]}], "expired"),
    case("revoked-member-wins", "a revocation always wins over a renewal (a cancelled sale revokes the member's cards): the card's own verdict, never VALID",
         "expired", [{"entries": [entry()]}], "expired", revocations={"token_ids": [], "members": {MEMBER: ISSUED + 1}}),
    case("revoked-token-wins", "a revoked card is never answered from a renewal: the card's own verdict", "expired",
         [{"entries": [entry()]}], "expired", revocations={"token_ids": ["a1b2c3d4e5f60718"], "members": {}}),
    case("bound-card-never-renewed", "a card bound to a phone is judged by its presentation, never from a renewal", "bound-card-shown-bare-expired",
         [{"entries": [entry()]}], "expired"),
    case("valid-card-renewed-since", "a valid card whose member paid again since it was issued: VALID, paid until the renewal's end, not the card's",
         "valid-with-name", [{"entries": [entry()]}], "valid", NOW + 30 * DAY),
    case("valid-card-showing-more", "a valid card showing more paid time than the renewal: the card answers",
         "valid-with-name", [{"entries": [entry(paid_until=NOW + 10 * DAY)]}], "valid"),
    case("delta-adds-renewal", "a renewal brought by a delta sync", "expired",
         [{"entries": []}, {"after": NOW - 3 * DAY, "entries": [entry()]}], "valid", NOW + 30 * DAY),
    case("whole-list-replaces", "a whole list replaces what was held: a renewal no longer listed is dropped", "expired",
         [{"entries": [entry()]}, {"entries": []}], "expired"),
    case("newer-renewal-replaces-older", "a later sale of the same member replaces the earlier renewal", "expired",
         [{"entries": [entry(paid_until=NOW + 10 * DAY)]}, {"after": NOW - DAY, "entries": [entry(paid_until=NOW + 70 * DAY, renewed_at=NOW - 1000)]}],
         "valid", NOW + 70 * DAY),
]

document = {
    "format": "PEEZ counter renewal vectors",
    "spec": "Docs/card-token.md (the counter bundle's renewals)",
    "how_to_use": "For each case: trust the card vectors' public keys, hold the revocation list, apply the renewal lists in "
                  "order (one without `after` replaces what is held; one with `after` adds each member's newer entry; entries "
                  "whose paid_until is before now less the leeway are dropped), then judge the card vector's token at `now` "
                  "with a leeway of 300 s: expect `expected.code`, and with a renewal, `expected.paid_until`.",
    "generator": "Fixtures/vectors/counter-renewal-vectors.py",
    "cases": C,
}
with open(os.path.join(HERE, "counter-renewal-vectors.json"), "w", encoding="utf-8") as out:
    json.dump(document, out, ensure_ascii=False, indent=1)
    out.write("\n")
print(f"wrote {len(C)} cases")
