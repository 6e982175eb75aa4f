"""Child processes of the store tests: ``hammer CAMPAIGN REVIEWER ROUNDS`` decides every item ROUNDS times;
``app CAMPAIGN REVIEWER`` answers items through the review app and prints each saved item, until killed."""

from __future__ import annotations

import sys
import time

from toolex.review.database import Campaign


def hammer(path: str, reviewer: str, rounds: int) -> None:
    with Campaign(path) as campaign:
        for round_ in range(rounds):
            for n, item_id in enumerate(campaign.item_ids()):
                valid = (n + round_) % 2 == 0
                campaign.decide(item_id, reviewer, valid, None if valid else "other", f"round {round_}")


def app(path: str, reviewer: str) -> None:
    from toolex.widgets.review import ReviewApp

    review = ReviewApp(path, reviewer)
    while review.current is not None:
        item_id = review.current
        review.quick.value = "i2 looked twice" if len(item_id) % 2 else "v"
        print(item_id, flush=True)
        time.sleep(0.2)
    print("done", flush=True)
    time.sleep(60)


if __name__ == "__main__":
    if sys.argv[1] == "hammer":
        hammer(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        app(sys.argv[2], sys.argv[3])
