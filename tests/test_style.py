"""Retriever colours are fixed: the same for a name whatever else is shown."""

from toolex.style import KNOWN, PALETTE, retriever_colour


def test_known_retrievers_have_distinct_fixed_colours():
    assert retriever_colour("bm25") == PALETTE[0] and retriever_colour("dense:minilm") == PALETTE[1]
    assert len(set(KNOWN.values())) == len(KNOWN)


def test_other_names_get_a_stable_palette_colour():
    colour = retriever_colour("openai:text-embedding-3-small")
    assert colour in PALETTE and colour == retriever_colour("openai:text-embedding-3-small")
