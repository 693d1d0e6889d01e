"""The statistical topic: cached computations, figures, text and views of its page."""
