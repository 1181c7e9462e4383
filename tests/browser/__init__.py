"""The built site opened in headless Chromium (``make browser``)."""
