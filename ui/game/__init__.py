"""The membership game: cached rounds and adversary, figures, text and views of its page."""
