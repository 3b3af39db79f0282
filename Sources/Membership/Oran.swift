/// The places and trades PEEZ serves in Oran, as stable identifiers with display names.
public enum Oran {
    /// One neighbourhood or shop category.
    public struct Place: Sendable, Hashable, Codable {
        public let id: String
        public let name: String
    }

    /// The 16 neighbourhoods.
    public static let neighbourhoods: [Place] = [
        Place(id: "sidi-el-houari", name: "Sidi El Houari"),
        Place(id: "centre-ville", name: "Centre-ville"),
        Place(id: "gambetta", name: "Gambetta"),
        Place(id: "saint-eugene", name: "Saint-Eugène"),
        Place(id: "maraval", name: "Maraval"),
        Place(id: "cite-djamel", name: "Cité Djamel"),
        Place(id: "hai-es-sabah", name: "Haï Es-Sabah"),
        Place(id: "usto", name: "USTO"),
        Place(id: "bir-el-djir", name: "Bir El Djir"),
        Place(id: "es-senia", name: "Es-Sénia"),
        Place(id: "plateaux", name: "Plateaux"),
        Place(id: "carteaux", name: "Carteaux"),
        Place(id: "boulanger", name: "Boulanger"),
        Place(id: "victor-hugo", name: "Victor Hugo"),
        Place(id: "eckmuhl", name: "Eckmühl"),
        Place(id: "akid-lotfi", name: "Akid Lotfi"),
    ]

    /// The 12 shop categories.
    public static let categories: [Place] = [
        Place(id: "boucherie", name: "Boucherie"),
        Place(id: "boulangerie-patisserie", name: "Boulangerie-Pâtisserie"),
        Place(id: "epicerie", name: "Épicerie"),
        Place(id: "fruits-legumes", name: "Fruits et légumes"),
        Place(id: "restaurant-cafe", name: "Restaurant et café"),
        Place(id: "pharmacie", name: "Parapharmacie"),
        Place(id: "coiffure-beaute", name: "Coiffure et beauté"),
        Place(id: "vetements", name: "Vêtements et chaussures"),
        Place(id: "telephonie", name: "Téléphonie et électronique"),
        Place(id: "librairie", name: "Librairie-papeterie"),
        Place(id: "pressing", name: "Pressing"),
        Place(id: "sport-loisirs", name: "Sport et loisirs"),
    ]

    static let neighbourhoodIDs = Set(neighbourhoods.map(\.id))
    static let categoryIDs = Set(categories.map(\.id))
}
