"""slotscope's web dashboard (Dash): placements side by side, editors, Spark-backed charts."""
