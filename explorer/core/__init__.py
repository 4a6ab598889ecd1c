"""The pure scoring core: data model, loaders, scorers, evaluation and metrics. No Panel import."""
