# Human validation (the paper's Appendix B): serve the review app of a campaign (included by the main Makefile,
# which defines PY). Make a campaign first: `toolex review sample --run DIR --campaign FILE --size N`.

PY ?= python
CAMPAIGN ?= build/review/campaign.sqlite
REVIEW_PORT ?= 8867

.PHONY: review test-review

review: ## serve the review app of CAMPAIGN with Voila on 127.0.0.1 (port REVIEW_PORT, 8867)
	$(PY) -m toolex.cli review serve --campaign $(CAMPAIGN) --port $(REVIEW_PORT)

test-review: ## the human-validation tests (the browser test needs chromium: make browser-deps)
	$(PY) -m pytest -q tests/review
