// placeholder: toggles is being written.
