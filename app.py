"""The script Streamlit runs once per visit (``make run`` serves it through ``serve.py``).

Each page is a small script in ``app_pages/``; :func:`ui.router.run_app` sets the page config,
draws the shared sidebar (active population and seed, both kept in the URL) and runs the page.
The script's own arguments (``streamlit run serve.py -- --population FILE --value COLUMN ...``,
which serves this script) name a population file for the sidebar; see :mod:`ui.command_line`.
``serve.py`` starts the file's read as the server starts; served directly
(``streamlit run app.py -- ...``), the read starts here, before the router and the pages are
imported, so the server's first run imports them while the file is read (later runs find the
read started and go on).
"""

import sys

from ui.command_line import start_preparation

start_preparation(sys.argv[1:])

from ui.router import run_app  # noqa: E402

run_app(argv=sys.argv[1:])
