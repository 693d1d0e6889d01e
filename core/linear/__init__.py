"""Counts, totals and proportions: their statistics, designs, mechanisms and plans."""
