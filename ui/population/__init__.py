"""The population topic: cached summaries, the histogram and the CSV upload form."""
