"""The Lee corpus reader (andnmf Table 1's protocol) and its refusals, and the topic measure on a small corpus."""
import numpy as np
import pytest

from simverify.datasets import lee
from theorems.andnmf import measures as ms

SPORT = "cricket match bowler wicket innings team"
WAR = "taliban forces afghanistan troops qaeda attack"


def two_topic_corpus(path, n=40):
    """n documents, each a few words of one of two disjoint word sets (SPORT, WAR), alternating."""
    rng = np.random.default_rng(0)
    lines = []
    for i in range(n):
        words = (SPORT if i % 2 == 0 else WAR).split()
        lines.append(" ".join(rng.choice(words, size=12)))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_shipped_lee_corpus_has_300_documents_and_2143_words():
    docs = lee.load_documents()
    counts, vocab = lee.document_term_matrix(docs)
    assert len(docs) == 300 and counts.shape == (300, 2143) and vocab.shape == (2143,)
    F = lee.word_frequencies(counts)
    assert np.allclose(F.sum(axis=1), 1.0) and np.all(F >= 0)
    assert "taliban" in set(vocab) and "the" not in set(vocab)


@pytest.mark.parametrize("content, needle", [
    (b"", "no documents (the file is empty)"),
    (b"first document here\n\nthird\n", "c.txt:2: a blank line"),
    (b"good words\nbad \xff bytes\n", "c.txt:2: not UTF-8 text"),
])
def test_a_malformed_corpus_is_refused_with_its_line(tmp_path, content, needle):
    path = tmp_path / "c.txt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        lee.load_documents(path)


def test_a_corpus_without_vocabulary_is_refused():
    with pytest.raises(ValueError, match="no vocabulary left"):
        lee.document_term_matrix(["the and of", "a an the"], min_df=1)


def test_a_document_without_vocabulary_words_is_named_by_line():
    counts = np.array([[1.0, 2.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="corpus:2: the document has no word of the vocabulary"):
        lee.word_frequencies(counts)


def test_topics_of_a_two_topic_corpus_separate_the_word_sets(tmp_path):
    path = two_topic_corpus(tmp_path / "c.txt")
    out = ms.measure_topics(np.random.SeedSequence(3), topic_model=["and", "nmf"], n_topics=2, n_top=6,
                            corpus=str(path))
    _, _, vocab = ms.corpus_matrices(str(path))
    for model in range(2):
        topics = {frozenset(vocab[i] for i in out["top_words"][model, t]) for t in range(2)}
        assert topics == {frozenset(SPORT.split()), frozenset(WAR.split())}  # one topic per word set, exactly


@pytest.mark.parametrize("assignment, needle", [
    ('topic_model=["and","nmf","lda","svd"]', "parameter topic_model: unknown 'svd' (one of and, nmf, lda)"),
    ("n_topics=5000", "n_topics=5000 exceeds min(documents, words) = 300"),
])
@pytest.mark.slow
def test_bad_table1_parameters_are_refused_before_any_work(check_refused_at_plan, tmp_path, assignment, needle):
    check_refused_at_plan(["andnmf.table1.topics", "--set", assignment], needle)


@pytest.mark.slow
def test_a_malformed_corpus_file_is_refused_at_plan_with_its_line(check_refused_at_plan, tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("one document\n\nanother\n")
    check_refused_at_plan(["andnmf.table1.topics", "--set", f"corpus={path}"], "c.txt:2: a blank line")
