import ArgumentParser
import CardCrypto
import CardServices
import Chargily
import Foundation

/// Online payments' settings of `peez serve` and `peez payments`: Chargily Pay's mode, the file holding its secret
/// key (mode 0600), and where the member and the webhooks go. Without a secret key, payments are off: the
/// checkout route answers 503 payments_unavailable.
struct ChargilyOptions: ParsableArguments {
    @Option(help: "Chargily Pay: test or live (or PEEZ_CHARGILY_MODE; default test). Each mode has its own keys and base URL.")
    var chargilyMode: String?

    @Option(help: "Chargily Pay: a file holding the secret key of that mode, mode 0600 (or PEEZ_CHARGILY_SECRET_KEY); it also signs the webhooks.")
    var chargilySecretKey: String?

    @Option(help: "Chargily Pay: where the member's browser goes after paying (or PEEZ_CHARGILY_SUCCESS_URL), e.g. https://peez.dz/paid.")
    var chargilySuccessUrl: String?

    @Option(help: "Chargily Pay: where it goes after a failed payment (or PEEZ_CHARGILY_FAILURE_URL; default the success URL).")
    var chargilyFailureUrl: String?

    @Option(
        help:
            "Chargily Pay: the public https address of this service's webhook (or PEEZ_CHARGILY_WEBHOOK_URL; default PEEZ_PUBLIC_URL + /v1/payments/chargily/webhook)."
    )
    var chargilyWebhookUrl: String?

    @Option(
        help:
            "Online payments: seconds after its creation an unpaid checkout is first read back from Chargily, then twice as long each time (or PEEZ_PAYMENT_CHECK_AFTER; default 300)."
    )
    var paymentCheckAfter: Int?

    @Option(help: "Chargily Pay: the API's base URL (or PEEZ_CHARGILY_API_URL; default the mode's, https://pay.chargily.net/[test/]api/v2).")
    var chargilyApiUrl: String?

    /// Chargily as configured, and the first read-back's delay (nil: no secret key, payments off). Throws a
    /// sentence naming the setting that is wrong.
    func load(_ settings: SettingsReader, publicURL: String?) throws -> (configuration: ChargilyConfiguration, checkAfter: Int64)? {
        let checkAfter = try ServeConfiguration.number(settings, "PEEZ_PAYMENT_CHECK_AFTER", flag: paymentCheckAfter, builtIn: 300, in: 1...86_400)
        let modeText = settings.value("PEEZ_CHARGILY_MODE", flag: chargilyMode, builtIn: "test")!
        let keyPath = settings.value("PEEZ_CHARGILY_SECRET_KEY", flag: chargilySecretKey)
        let success = settings.value("PEEZ_CHARGILY_SUCCESS_URL", flag: chargilySuccessUrl)
        let failure = settings.value("PEEZ_CHARGILY_FAILURE_URL", flag: chargilyFailureUrl)
        let webhook = settings.value(
            "PEEZ_CHARGILY_WEBHOOK_URL",
            flag: chargilyWebhookUrl,
            builtIn: publicURL.map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) + "/v1/payments/chargily/webhook" }
        )
        let apiURL = settings.value("PEEZ_CHARGILY_API_URL", flag: chargilyApiUrl)
        guard let keyPath else { return nil }
        guard let mode = ChargilyConfiguration.Mode(rawValue: modeText) else {
            throw settings.invalid("PEEZ_CHARGILY_MODE", "must be test or live")
        }
        guard let success else {
            throw ChargilyConfigurationError("PEEZ_CHARGILY_SUCCESS_URL: say where the member goes after paying, e.g. https://peez.dz/paid")
        }
        do {
            try KeyFiles.requireOwnerOnly(keyPath, what: "Chargily secret key (PEEZ_CHARGILY_SECRET_KEY)")
        } catch {
            throw ChargilyConfigurationError("\(error)")
        }
        let key: [UInt8]
        do {
            key = try KeyFiles.readFile(keyPath, limit: 4_096)
        } catch {
            throw ChargilyConfigurationError("PEEZ_CHARGILY_SECRET_KEY: \(error)")
        }
        let configuration = try ChargilyConfiguration(
            mode: mode,
            apiURL: apiURL,
            secretKey: String(decoding: key, as: UTF8.self),
            successURL: success,
            failureURL: failure,
            webhookURL: webhook
        )
        return (configuration, Int64(checkAfter))
    }
}
