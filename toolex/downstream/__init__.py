"""The downstream experiment (the paper's Figure 6): an agent solves StableToolBench queries with the tools of
one setting (the annotated APIs, a retriever's, or a ToolEX-verified equivalent combination) against a
virtual API server, and an LLM evaluator decides whether each query was solved (StableToolBench's solvable
pass rate).
"""
