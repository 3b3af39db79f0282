/// The places and trades PEEZ serves in Oran, as stable identifiers with their names in French and Arabic, as
/// the app's screens list them.
///
/// The Arabic names are the usual Arabic forms of the neighbourhoods' names and the plain Arabic words for
/// the trades; the PEEZ team reviews them with the app's copy before each release.
public enum Oran {
    /// One neighbourhood or shop category.
    public struct Place: Sendable, Hashable, Codable {
        /// The stable identifier the API takes and stores, e.g. `sidi-el-houari`.
        public let id: String
        /// The French name.
        public let fr: String
        /// The Arabic name.
        public let ar: String

        enum CodingKeys: String, CodingKey {
            case id
            case fr = "name_fr"
            case ar = "name_ar"
        }
    }

    /// The 16 neighbourhoods.
    public static let neighbourhoods: [Place] = [
        Place(id: "sidi-el-houari", fr: "Sidi El Houari", ar: "سيدي الهواري"),
        Place(id: "centre-ville", fr: "Centre-ville", ar: "وسط المدينة"),
        Place(id: "gambetta", fr: "Gambetta", ar: "قمبيطة"),
        Place(id: "saint-eugene", fr: "Saint-Eugène", ar: "سان أوجين"),
        Place(id: "maraval", fr: "Maraval", ar: "مرافال"),
        Place(id: "cite-djamel", fr: "Cité Djamel", ar: "حي جمال"),
        Place(id: "hai-es-sabah", fr: "Haï Es-Sabah", ar: "حي الصباح"),
        Place(id: "usto", fr: "USTO", ar: "يوسطو"),
        Place(id: "bir-el-djir", fr: "Bir El Djir", ar: "بئر الجير"),
        Place(id: "es-senia", fr: "Es-Sénia", ar: "السانية"),
        Place(id: "plateaux", fr: "Plateaux", ar: "البلاطو"),
        Place(id: "carteaux", fr: "Carteaux", ar: "كارطو"),
        Place(id: "boulanger", fr: "Boulanger", ar: "بولانجي"),
        Place(id: "victor-hugo", fr: "Victor Hugo", ar: "فيكتور هوغو"),
        Place(id: "eckmuhl", fr: "Eckmühl", ar: "إكموهل"),
        Place(id: "akid-lotfi", fr: "Akid Lotfi", ar: "العقيد لطفي"),
    ]

    /// The 12 shop categories.
    public static let categories: [Place] = [
        Place(id: "boucherie", fr: "Boucherie", ar: "جزارة"),
        Place(id: "boulangerie-patisserie", fr: "Boulangerie-Pâtisserie", ar: "مخبزة وحلويات"),
        Place(id: "epicerie", fr: "Épicerie", ar: "بقالة"),
        Place(id: "fruits-legumes", fr: "Fruits et légumes", ar: "خضر وفواكه"),
        Place(id: "restaurant-cafe", fr: "Restaurant et café", ar: "مطعم ومقهى"),
        Place(id: "pharmacie", fr: "Parapharmacie", ar: "شبه صيدلية"),
        Place(id: "coiffure-beaute", fr: "Coiffure et beauté", ar: "حلاقة وتجميل"),
        Place(id: "vetements", fr: "Vêtements et chaussures", ar: "ملابس وأحذية"),
        Place(id: "telephonie", fr: "Téléphonie et électronique", ar: "هواتف وإلكترونيات"),
        Place(id: "librairie", fr: "Librairie-papeterie", ar: "مكتبة وأدوات مكتبية"),
        Place(id: "pressing", fr: "Pressing", ar: "تنظيف الملابس"),
        Place(id: "sport-loisirs", fr: "Sport et loisirs", ar: "رياضة وترفيه"),
    ]

    /// The neighbourhood whose identifier is `id`, or nil.
    public static func neighbourhood(_ id: String) -> Place? {
        neighbourhoods.first { $0.id == id }
    }

    static let neighbourhoodIDs = Set(neighbourhoods.map(\.id))
    static let categoryIDs = Set(categories.map(\.id))
}
