"""Scorers: trajectory match, answer overlap, key fields and field rules, the normalisation ladder, response scorers, embedding similarity, the cascade."""
