"""Release planner: cached plans, figures, texts, views and its two exports."""
