"""The pages hexsim writes: the document library (document.py), figures (plots.py) and the
balance report (balance.py and the modules it is made of). The workflows' pages are beside their
workflows (sim/workflows/*_report.py)."""
