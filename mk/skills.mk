# Skill extension: the SkillRet-style benchmark, SkillEq and the skill tests (included by the main Makefile,
# which defines PY, SMOKE and JUDGE).

.PHONY: skills skills-smoke test-skills

skills: ## build the SkillRet-style benchmark and SkillEq (SMOKE=1: small; JUDGE=offline|local|api|cascade)
	$(PY) -m toolex.cli skills --smoke $(SMOKE) --judge $(JUDGE)

skills-smoke: ## the skill pipeline in its CI setting (300 skills, 16 queries, offline)
	$(PY) -m toolex.cli skills --smoke 1 --generator offline --judge offline

test-skills: ## the skill tests
	$(PY) -m pytest tests/skills -q
