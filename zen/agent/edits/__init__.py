"""What makes a model's edit land as it meant it, as pure functions over text: a stray divider
dropped (`fence_top`), lazy placeholders caught (`lazy`), a Python snippet merged into its file
(`snippet`), and the syntax of what a reply changed checked (`syntax_check`, which alone reads
files, and only those the reply changed). The edit-block applier and the loop call them; none
writes a file."""
