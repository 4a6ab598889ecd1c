"""The app's views: each module builds one part of the page and updates it from the session state."""
