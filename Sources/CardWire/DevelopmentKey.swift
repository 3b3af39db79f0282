/// The development signing key: its private half is in the repository (`Keys/development/signing-key.pem`), so
/// anyone can sign a card with it. A service started without `--development` never publishes it, trusts it or
/// signs with it, and a counter enrolled against such a service refuses any trust data that carries it.
public enum DevelopmentKey {
    /// The published development key's kid.
    public static let keyID = "46211e5d86abc761"

    /// Whether `keys` name the development key.
    public static func isAmong(_ keys: [KeySetDocument.Key]) -> Bool {
        keys.contains { $0.kid == keyID }
    }

    /// The refusal of trust data (a bundle, a key set) that carries the development key, for a counter that was
    /// not enrolled against a development service.
    public static func refusal(in keys: [KeySetDocument.Key], what: String) -> CardWireError? {
        guard isAmong(keys) else { return nil }
        return CardWireError(
            .developmentKey,
            "\(what) carries the development key \(keyID), whose private half is public: this counter was enrolled against a production service and trusts no card it signs (the service must be restarted without it: peez check names the setting)"
        )
    }
}
