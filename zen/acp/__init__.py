"""`zen acp`: zen as an Agent Client Protocol agent over stdio (Zed, JetBrains, Harbor).

A front-end like the shell and `zen -p`: it opens sessions through `zen.app`, renders zen's
typed events as `session/update` notifications and answers the approver with
`session/request_permission`. Needs the optional `acp` extra (the `agent-client-protocol` SDK).
"""
