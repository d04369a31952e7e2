"""Claims of the papers, one package per paper. The one list of them is the ``simverify.claims`` entry points in
pyproject.toml: the registry imports each listed package, and importing a package registers its claims."""
