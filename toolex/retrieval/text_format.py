"""How each encoder family formats queries (with their instruction) and tool documents.

| family  | query                                               | document          | pooling        |
|---------|-----------------------------------------------------|-------------------|----------------|
| qwen3   | ``Instruct: {instruction}\\nQuery:{query}``          | as is             | last token, L2 |
| e5      | ``Instruct: {instruction}\\nquery: {query}``         | ``passage: {doc}``| mean, L2       |
| plain   | ``Instruct: {instruction}\\nQuery: {query}``         | as is             | the model's    |

Qwen3-Embedding and Tool-Embed use their task default instruction when a query has none; e5 and plain fall
back to the bare query (``query: {query}`` for e5). Tools are always encoded without instruction. These are
the query formats of the Tool-DE evaluation code (``tool_de/eval.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

QWEN3_DEFAULT_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"
FAMILIES = ("qwen3", "e5", "plain")


@dataclass(frozen=True)
class PromptFormat:
    """Query and document templates of one encoder family."""

    family: str
    with_instruction: str
    without_instruction: str
    document: str = "{text}"
    default_instruction: str = ""
    pooling: str = "mean"

    def query(self, text: str, instruction: str = "") -> str:
        instruction = instruction or self.default_instruction
        if instruction:
            return self.with_instruction.format(instruction=instruction, query=text)
        return self.without_instruction.format(query=text)

    def doc(self, text: str) -> str:
        return self.document.format(text=text)


FORMATS = {
    "qwen3": PromptFormat("qwen3", "Instruct: {instruction}\nQuery:{query}", "{query}",
                          default_instruction=QWEN3_DEFAULT_INSTRUCTION, pooling="last"),
    "e5": PromptFormat("e5", "Instruct: {instruction}\nquery: {query}", "query: {query}",
                       document="passage: {text}", pooling="mean"),
    "plain": PromptFormat("plain", "Instruct: {instruction}\nQuery: {query}", "{query}", pooling="mean"),
}


def detect_family(model: str) -> str:
    """The prompt family of a model from its hub id or path (``plain`` when nothing matches)."""
    name = model.lower()
    if "qwen3-embedding" in name or "tool-embed" in name:
        return "qwen3"
    if "e5" in name.replace("_", "-").split("/")[-1] and "mistral" not in name:
        return "e5"
    return "plain"


def prompt_format(family: str) -> PromptFormat:
    if family not in FORMATS:
        raise ValueError(f"unknown prompt family {family!r}; choose one of {', '.join(FAMILIES)}")
    return FORMATS[family]
