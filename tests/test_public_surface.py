"""Each package's public names are a decision: adding one means changing this list."""

from __future__ import annotations

import importlib

import pytest

SURFACE = {
    "ordergate": {"ConfigError", "DecimalFieldError", "OrdergateError", "ToolError", "__version__"},
    "ordergate.core": {
        "MIN_KEY_SECRET_LENGTH", "ZERO", "AcceleratedClock", "Bounds", "Clock", "ClockMode",
        "Clocks", "ConfigError", "MarketClock", "SecurityClock", "usd",
        "CryptoOrderState", "CryptoOrderType", "CryptoTimeInForce", "DecimalFieldError",
        "Interval", "MarketHours",
        "OptionDirection", "OptionPositionEffect", "OrderState", "OrderType", "OrdergateError",
        "PlacedAgent", "RealtimeClock", "RedactingFilter", "Secret", "Side", "SteppedClock",
        "TimeInForce", "ToolError", "create_private", "ensure_private_dir", "install_redaction",
        "make_clock", "optional_decimal", "parse_decimal", "private_problem", "redact",
        "register_secret", "required_decimal", "tamper_problem", "to_wire", "utc",
        "write_private",
    },
    "ordergate.calendar": {
        "NEW_YORK", "CalendarError", "NotASessionDay", "NyseCalendar", "OutOfCalendar", "Session",
        "SessionSpan", "TradingDay", "market_session", "next_session_start", "PNL_SPANS",
        "span_start",
    },
    "ordergate.inventory": {"ToolClass", "ToolSpec", "load_inventory"},
    "ordergate.sandbox": {
        "serve_forever",
        "DEFAULT_PORT", "Framing", "MCP_PATH", "Sandbox", "SandboxConfig", "SandboxServer",
        "build_sandbox",
    },
    "ordergate.sandbox.oauth": {"AccessGrant", "OAuthServer", "SHARED_CLIENT_ID", "TokenPair"},
    "ordergate.oauth": {
        "Authorization", "AuthorizationServer", "AuthorizationStore", "BAD_CODE", "BAD_REFRESH",
        "Client", "ClientRegistry", "CodeExchange", "ConsentCheck", "ConsentField",
        "ConsentPages", "ConsentPrompt", "ConsentRefusal", "ConsentTicket", "ConsentView",
        "ErrorCode", "FormError", "IssuedTokens", "LOOPBACK_HOSTS", "MAX_FORM_FIELDS",
        "MAX_REDIRECT_URI_LENGTH", "METADATA_PATH", "MultiParams", "NO_STORE", "OwnClients",
        "PAGE_HEADERS", "ParameterError", "Paths", "ProfileChoice", "Refusal", "Registrar",
        "RegistrationRefused", "S256", "ScopeError", "SharedClient", "SignIn", "TokenRevoker",
        "WELL_KNOWN_PREFIX", "check_lifetimes", "check_origin", "code_refusal", "consent_form",
        "granted_scope", "html_page", "is_valid_challenge", "is_valid_verifier",
        "metadata_paths", "parse_scope", "read_form", "redirect_problem", "redirect_uri_problem",
        "redirect_with", "refresh_refusal", "s256_challenge", "single_param", "token_error",
        "verify_s256", "www_authenticate", "REFUSED_SCHEMES", "is_private_use",
        "redirect_destination",
    },
    "ordergate.discovery": {
        "is_url", "load_live",
        "AmbiguousCapability", "ArgumentProblem", "CANONICAL_FIELDS", "CAPABILITIES",
        "CRYPTO_CAPABILITIES", "Capability", "Change", "ChangeKind", "Classifier", "Compat",
        "EXIT_APPEARED", "EXIT_DISAPPEARED", "EXIT_UNCHANGED", "InvalidArguments",
        "InvalidSchema", "Readiness", "SYNONYMS", "Snapshot", "SnapshotError", "SourceError",
        "SourceKind", "ToolEntry", "ToolUnavailable", "UnmappedField", "UnsupportedField",
        "accepts_crypto_pair", "assess", "candidates", "canonical_of", "check",
        "check_arguments", "classify", "diff", "load_file", "load_overrides", "load_surface",
        "map_order", "name_words", "prepare_arguments", "property_for", "resolve",
        "resolve_all", "strip_local",
    },
    "ordergate.bench": {"BENCHES", "Summary", "json_line", "run_bench", "summarise"},
    "ordergate.ledger": {
        "chain_hash", "event_body", "to_units", "linked_filing_body",
        "CAP_DAILY_USD", "CAP_ORDERS_PER_DAY", "DEFAULT_APPROVAL_TTL", "GENESIS", "PAUSED",
        "WINDOW", "Approval", "ApprovalState", "Approvals", "ChainHead", "CheckpointError",
        "Controls", "Decision",
        "DecisionEntry", "EventRecord", "Execution", "Filing", "FilingRecord", "FilingResult",
        "FilingStatus", "Journal", "Ledger", "LedgerError", "LedgerSchemaError", "OrderRecord",
        "Orders", "PauseState", "ReservationError", "RollingCaps", "SessionEquity", "Spend",
        "UnknownFilingError", "VerifyResult", "canonical_json", "open_ledger", "verify",
        "AppliedPolicy", "policy_sha256", "write_transaction", "events_after", "EquityMark",
        "EquityMarks", "MARK_EVERY",
    },
    "ordergate.record": {
        "BENCHMARK", "BPS_PLACES", "RANK_AFTER", "Closes", "Excess", "GradePass", "Grader",
        "MarketCloses", "TrackRecord", "excess_bps", "grades_of", "grading_day", "owner_view",
        "public_id", "public_view", "track_of", "track_records",
    },
    "ordergate.store": {
        "ACCOUNT_LOCKS", "BUSY_TIMEOUT_MS", "FILINGS_GATE", "StoreError", "StoreSchemaError",
        "account_lock_params", "blocking", "default_url", "engine_for", "iso", "lock_accounts",
        "migrate", "normalise_url", "parse_iso", "reading", "step_memo", "take_locks",
        "to_us", "write_transaction",
    },
    "ordergate.execution": {
        "APPROVAL_DECIDED", "APPROVAL_DENIED", "APPROVAL_EXPIRED", "APPROVAL_TERMS_ALTERED",
        "AccountReader", "AccountView", "ApprovalNotifier", "Arming", "BROKER_CHECKS_FAILED",
        "BROKER_REFUSED", "BrokerFill", "BrokerOrder", "BrokerRefusal", "ClientAccountReader",
        "ClientQuoteSource", "DEFAULT_GRACE", "Guard", "GuardStatus", "LiveExecutor",
        "NoAnswer", "ORDER_PATH_TOOLS", "OrderExecutor", "Outcome", "PaperAccountReader",
        "PaperAccount", "PaperBook", "PaperExecutor", "PaperOrder", "Placement", "QuoteSource",
        "PaperClosedTrade", "PaperFill", "closed_trades",
        "ORDER_WINDOW", "PaperAnswerReader", "PaperUnanswered", "paper_orders_of",
        "paper_portfolio", "paper_positions",
        "REVIEW_UNANSWERED",
        "ReconcileReport", "Reconciler", "Review", "Ticket", "arm", "calendar_session",
        "canonical_order_id",
        "paper_session", "deny_approval", "end_filing", "filing_terms", "pinned_contract",
        "proposal_of", "read_status", "terms_sha256", "ticket_of",
    },
    "ordergate.runtime": {
        "approval_announcement",
        "EMBEDDED_ACCOUNT", "Running", "Settings", "Upstream", "UpstreamChoice",
        "WebhookNotifier", "embedded_venue",
        "guard_on", "open_guard", "open_upstream", "PolicyNotApplied", "policy_in_force",
        "check_home",
    },
    "ordergate.owner": {
        "CODE_MISSING", "CODE_REPLAYED", "CODE_WRONG", "DIGITS", "ENROLMENT_FILE",
        "FAILURE_WINDOW", "INTERVAL_S", "LOCKED", "LOCKOUT", "MAX_FAILURES", "MIN_PASSPHRASE",
        "NOT_ENROLLED", "OWNER_IDENTITY", "Credential", "Enrolment", "EnrolmentError",
        "OwnerAct", "OwnerAuthority", "OwnerError", "OwnerRefused", "OwnerStatus",
        "check_passphrase_rules", "looks_like_code", "new_enrolment", "provisioning_uri",
        "read_enrolment", "terminal_qr", "write_enrolment",
    },
    "ordergate.gateway.desk": {
        "DeskError", "GuardFor", "NotAGateway", "OWNER_PREFIX", "OwnerDesk", "RemoteDesk",
        "TRADING_PERMISSIONS", "owner_routes", "policy_baseline", "probe", "refusal_status",
    },
    "ordergate.service": {
        "DEFAULT_HOME", "DEFAULT_USER", "ENVIRONMENT_FILE", "Installed", "ServiceError",
        "ServiceUnit", "UNIT_PATH", "install", "installed_executable", "require_root",
    },
    "ordergate.gateway.custody": {
        "BIND_COOKIE", "NO_MASTER_SECRET", "NoVault", "SESSION_ENDED", "SealedBackend",
        "SessionSource", "UpstreamAuthority", "UpstreamSignIn", "Vault",
    },
    "ordergate.callers": {
        "CALLER_PATTERN", "DEFAULT_CACHE_SIZE", "ENV_CALLER_TOKEN_KEY", "ENV_MASTER_SECRET",
        "MAX_TOKEN_LENGTH", "MAX_TTL", "MIN_TTL", "PROFILE_PATTERN", "CallerClaims", "CallerKey",
        "CallerRefusal", "CallerVerifier", "KeySource", "RefusalReason", "looks_like_caller_token",
        "mint",
    },
    "ordergate.profiles": {
        "BUILTIN_PROFILES", "DEFAULT_PROFILE", "PERMISSION_PHRASES", "Permission",
        "PolicyOverrides", "Profile", "ProfileError", "Profiles", "check_tightens",
        "load_profiles", "parse_overrides", "permission_for", "refusal_for", "visible_tools",
    },
    "ordergate.gateway": {
        "SealError", "Sealer",
    },
    "ordergate.gateway.server": {
        "Custody", "GatewayConfig", "RateLimits", "Serving", "mint_owner_tokens", "run_gateway",
    },
    "ordergate.gateway.oauth": {
        "AccessVerifier", "Connection", "GatewayAuth", "GatewayStore", "Grant",
    },
    "ordergate.gateway.mcp": {
        "RECORD_LIMIT", "record",
        "FILED_FIELDS", "GATEWAY_INFO", "GATE_TOOLS", "GatewayBackend", "GatewayMethods",
        "MAX_BODY", "MAX_OPEN_PROPOSALS", "ORDER_OUTPUT_SCHEMA", "Principal", "Route",
        "Routing", "gateway_endpoint", "route", "Credential", "Verify",
    },
    "ordergate.mcpserve": {
        "Challenge", "DEFAULT_MAX_BODY", "DROP", "Framing", "HostCheck", "HostPolicy",
        "INTERNAL_ERROR",
        "INVALID_PARAMS", "INVALID_REQUEST", "MAX_JSON_DEPTH", "METHOD_NOT_FOUND",
        "McpEndpoint", "PARSE_ERROR", "RpcError", "SUPPORTED_PROTOCOL_VERSIONS", "ServerInfo",
        "MCP_PROTOCOL_VERSIONS", "RATE_LIMITED", "Admit",
        "ServerMethods", "Session", "SessionStore", "TransportFaults", "async_verifier",
        "dumps_decimal_numbers",
        "dumps_decimal_strings", "error_result", "loads_json", "open_session", "tool_result",
    },
    "ordergate.policy": {
        "check_daily_loss", "check_drawdown",
        "ALL_SYMBOLS", "AccountState", "Approval", "ApprovalKind", "DEFAULTS",
        "DEFAULT_POLICY_TOML", "Decision", "Exemption", "MarketSession", "Mode", "OpenOrder",
        "PolicyConfig", "Position", "Proposal", "ProposalError", "Quote", "RULES", "ReasonCode",
        "Rule", "SESSION_COVERAGE", "Stage", "Terms", "TradingState", "estimate_terms",
        "evaluate", "is_padded", "is_plain_ticker", "load_policy", "normalise_symbol",
        "parse_policy",
        "policy_from_mapping", "reduces_position", "write_default_policy",
        "CAP_DIRECTIONS", "changed_keys", "loosened_keys",
    },
    "ordergate.client": {
        "MAX_PAGES", "field_name", "AuthorizationServer", "discover", "register",
        "request_tokens", "request_tokens_blocking", "coalesce", "Wire", "WireAnswer",
        "BusinessError", "Caller", "Config", "DeferredCaller", "DEFAULT_URL", "ENV_ACCESS_TOKEN",
        "ENV_REFRESH_TOKEN",
        "HTTPStatusError", "JsonRpcCaller", "LoginRequired", "Refresh", "ResponseParseError",
        "Robinhood", "RpcError", "ServerInfo", "TokenSet", "ToolError", "TransportError",
        "WrongServer", "connect", "connect_with", "login", "ordergate_home", "read_token_file",
        "write_token_file",
    },
    "ordergate.client.accounts": {
        "Account", "AccountsClient", "AssetClassPnl", "BuyingPower", "ClosedTrade", "CryptoAccount",
        "CryptoOnboardingInfo", "MarginUpgradeInfo", "OptionLevel", "OptionLevelUpgradeInfo",
        "PnlTradesPage", "Portfolio", "RealizedPnl", "TradeApprovalSetting",
    },
    "ordergate.client.advanced": {
        "AdvancedClient", "AdvancedOrder", "AdvancedOrderRequest", "AdvancedOrderReview",
        "AdvancedOrdersPage", "AdvancedOrdersRequest",
    },
    "ordergate.client.alerts": {
        "Alert", "AlertAssetClass", "AlertCondition", "AlertDeletion", "AlertIndicator",
        "AlertLogEntry", "AlertLogPage", "AlertLogRequest", "AlertsClient", "AlertsPage",
        "AlertsRequest", "CreateAlertRequest", "DeleteAlertRequest", "MarkAlertsReadRequest",
        "MarkedRead", "UpdateAlertRequest",
    },
    "ordergate.client.crypto": {
        "CryptoClient", "CryptoExecution", "CryptoOrder", "CryptoOrderChecks", "CryptoOrderRequest",
        "CryptoOrdersPage", "CryptoPosition", "CryptoPositionsPage", "CryptoPreview", "CryptoQuote",
        "CryptoQuotes", "Currency", "CurrencyPair", "CurrencyPairsPage",
    },
    "ordergate.client.equity": {
        "AccountTypeTradability", "Amount", "Approval", "ApprovalLeg", "EquityClient",
        "EquityExecution", "EquityOrder", "EquityOrderRequest", "EquityOrdersPage",
        "EquityPosition", "EquityPositionsPage", "EquityReview", "EquityTradability",
        "MAX_TAX_LOTS", "OrderChecks", "PlaceResult", "ProposedOrder", "ReviewQuote", "TaxLot",
        "TaxLotPick", "TaxLotsPage", "TradabilityResult",
    },
    "ordergate.client.market": {
        "AssetType", "Bar", "Book", "BookError", "BookLevel", "Bounds", "EquityClose",
        "EquityHistoricals", "EquityQuote", "EquityQuotes", "HistoricalsRequest", "Index",
        "IndexBar", "IndexHistoricals", "IndexHistoricalsRequest", "IndexQuote", "IndexQuotes",
        "IndexSeries", "Indexes", "Interval", "MarketClient", "PriceBooks", "QuoteResult",
        "SearchEquity", "SearchIndex", "SearchPair", "SearchRequest", "SearchResults",
        "SymbolHistoricals",
    },
    "ordergate.client.options": {
        "CashCollateral", "Collateral", "EquityCollateral", "FeeLine", "MAX_LEGS", "MinTicks",
        "OptionBar", "OptionChain", "OptionClose", "OptionExecution", "OptionExercise",
        "OptionFees", "OptionHistoricals", "OptionInstrument", "OptionInstrumentsPage",
        "OptionLegRequest", "OptionOrder", "OptionOrderChecks", "OptionOrderLeg",
        "OptionOrderRequest", "OptionOrdersPage", "OptionPosition", "OptionPositionsPage",
        "OptionQuote", "OptionQuoteResult", "OptionQuotes", "OptionReview", "OptionSeries",
        "OptionType", "OptionsClient", "PositionType", "ReviewedLeg", "UnderlyingInstrument",
    },
    "ordergate.client.research": {
        "AnalystRatings", "AnalystRatingsResults", "BalanceSheet", "CashFlow", "CatalogEntry",
        "CompanyFinancials", "Earnings", "EarningsCalendar", "EarningsCalendarRequest",
        "EarningsCall", "EarningsFigure", "EarningsReport", "EarningsResults", "FactsCatalog",
        "FactsCatalogRequest", "FilingFacts", "FilingIndex", "FilingSection", "FilingSectionText",
        "FinancialStatement", "FinancialsRequest", "FinancialsResults", "Fundamentals",
        "FundamentalsRequest", "FundamentalsResults", "IncomeStatement", "IndicatorPoint",
        "NewsArticle", "NewsPage", "NewsRequest", "PoliticianTrade", "PoliticianTrades",
        "PoliticianTradesRequest", "PriceTarget", "RatingNote", "RatingSummary", "ResearchClient",
        "SecFiling", "SecFilingFacts", "SecFilingIndexRequest", "SecFilingRecord",
        "SecFilingRequest", "TechnicalIndicators", "TechnicalIndicatorsRequest", "XbrlFact",
    },
    "ordergate.client.scanner": {
        "CreateScanRequest", "Datapoint", "Datapoints", "FilterPredicate", "FilterSpec",
        "FilterSpecs", "PreviewScanRequest", "Scan", "ScanColumn", "ScanFilter", "ScanPreset",
        "ScanResults", "ScanRow", "ScannerClient", "ScannerLimits", "SortDirection",
        "UpdateScanConfigRequest", "UpdateScanFiltersRequest",
    },
    "ordergate.client.watchlists": {
        "CreateWatchlistRequest", "OptionItemsRequest", "OptionWatchItem", "OptionWatchlistAdded",
        "OptionWatchlistRemoved", "PositionType", "UpdateWatchlistRequest", "Watchlist",
        "WatchlistAdded", "WatchlistContents", "WatchlistItem", "WatchlistItemsRequest",
        "WatchlistRemoved", "WatchlistsClient",
    },
}  # fmt: skip


@pytest.mark.parametrize("module_name", sorted(SURFACE))
def test_public_surface_is_exactly_the_declared_names(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = set(vars(module)["__all__"])
    assert exported == SURFACE[module_name]
    for name in exported:
        assert hasattr(module, name), name
