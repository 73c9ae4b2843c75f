"""The probe: a corpus of wrong and edge calls, each evaluated with torch and with ndgrad, and every outcome
classified (ok, internal, silent, class, message, raises, values). ``python -m tests.probe`` prints the table."""
