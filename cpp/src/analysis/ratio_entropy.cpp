// placeholder: ratio_entropy is being written.
