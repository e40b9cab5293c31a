"""The gateway: an MCP server with its own OAuth that holds the person's upstream session
sealed, passes reads through and puts every order through the guard (issue 6, in progress).
"""

from ordergate.gateway._seal import Sealer, SealError

__all__ = ["SealError", "Sealer"]
