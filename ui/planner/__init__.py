"""Release planner: one module per tab (compare, accuracy, several, publication, with their
texts in ``*_text``), what the tabs share (inputs, text), cached plans, figures and exports."""
