"""Session state the agents share or keep: the memo blackboard, the todo plan, read tracking."""
