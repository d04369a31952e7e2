"""Readers of public data sets in their published file layouts. Nothing is downloaded; one small file ships with
the package: the Olivetti faces (``data/olivettifaces.mat``, provenance in ``data/PROVENANCE.md``); the Lee news
corpus is read from inside the installed gensim package (``lee``)."""
