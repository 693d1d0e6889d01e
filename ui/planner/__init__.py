"""The release planner topic: cached computations, figures, text and views of its page."""
