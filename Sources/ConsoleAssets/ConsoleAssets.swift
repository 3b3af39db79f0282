public import CounterAssets

/// The PEEZ team's console at `/console/` (Docs/console.md): its files, built into the binary as the web
/// counter's are, and its texts in three languages (the charts drawn on the server use them too).
public enum ConsoleAssets {
    /// `console-texts.json`: every text of the console in English, French and Arabic.
    public static var consoleTexts: [UInt8] { PackageResources.console_texts_json }

    /// The console's files by name, as `peez serve` sends them under `/console/`.
    public static let webFiles: [String: WebFile] = Dictionary(
        uniqueKeysWithValues: [
            ("api.js", PackageResources.api_js), ("app.js", PackageResources.app_js), ("console-texts.json", PackageResources.console_texts_json),
            ("console.css", PackageResources.console_css), ("crosstab.js", PackageResources.crosstab_js), ("dialog.js", PackageResources.dialog_js),
            ("dom.js", PackageResources.dom_js), ("format.js", PackageResources.format_js), ("index.html", PackageResources.index_html),
            ("panel-anomalies.js", PackageResources.panel_anomalies_js), ("panel-audit.js", PackageResources.panel_audit_js),
            ("panel-checks.js", PackageResources.panel_checks_js),
            ("panel-counters.js", PackageResources.panel_counters_js), ("panel-members.js", PackageResources.panel_members_js),
            ("panel-reminders.js", PackageResources.panel_reminders_js), ("panel-renewals.js", PackageResources.panel_renewals_js),
            ("panel-sales.js", PackageResources.panel_sales_js), ("panel-subscriptions.js", PackageResources.panel_subscriptions_js),
            ("panel-payments.js", PackageResources.panel_payments_js), ("panel-wallet.js", PackageResources.panel_wallet_js),
            ("panel-accounts.js", PackageResources.panel_accounts_js),
            ("range.js", PackageResources.range_js), ("revoke.js", PackageResources.revoke_js), ("session.js", PackageResources.session_js),
            ("texts.js", PackageResources.texts_js),
        ].map { ($0.0, WebFile(name: $0.0, bytes: $0.1)) }
    )

    /// The names of the files, as listed here (a test holds them to the folder).
    public static var fileNames: Set<String> { Set(webFiles.keys) }
}
