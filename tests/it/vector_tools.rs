//! Vector indexes off the embedded engine: the SearchVectors request the
//! SDK executor sends and the response it decodes, against DynamoDB's
//! documented JSON shapes (a capturing HTTP client, no network); the
//! endpoint answering the same typed search as the embedded backend; table
//! creation, description, update and drift of vector indexes through the
//! AWS driver, on the endpoint (DynamoDB Local has no vector indexes).

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use serde_json::{Value, json};
use singletable::backend::ExtraIndexes;
use singletable::definition::{Billing, Drift, TableDefinition};
use singletable::{AttributeValue, Db, Embedded, Entity, SdkDb, SdkExecutor, Table};
use singletable_server::Endpoint;

#[derive(Table)]
#[table(
    name = "Shop",
    entities(Product),
    vector1(name = "ProductSearch", dimensions = 3, distance = cosine, hash(category = S), filter(price = N))
)]
pub struct Shop;

/// The same table before its vector index: what `update_table` evolves.
#[derive(Table)]
#[table(name = "Shop")]
pub struct ShopBefore;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector1(vector = embedding, hash(category), filter(price))]
#[access(similar, index = vector1)]
pub struct Product {
    pub id: String,
    pub category: String,
    pub price: u32,
    pub embedding: Vec<f32>,
}

fn products() -> Vec<Product> {
    let p = |id: &str, category: &str, price, embedding: [f32; 3]| Product {
        id: id.into(),
        category: category.into(),
        price,
        embedding: embedding.to_vec(),
    };
    vec![
        p("tea", "kitchen", 12, [1.0, 0.0, 0.0]),
        p("mug", "kitchen", 8, [0.8, 0.6, 0.0]),
        p("pan", "kitchen", 30, [0.0, 1.0, 0.0]),
        p("kettle", "kitchen", 19, [0.9, 0.1, 0.4]),
        p("lamp", "living", 25, [1.0, 0.0, 0.0]),
    ]
}

/// An attribute value in DynamoDB's JSON wire form.
fn wire(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(b) => json!({ "NULL": b }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(wire).collect::<Vec<_>>() }),
        AttributeValue::M(m) => {
            json!({ "M": m.iter().map(|(k, v)| (k.clone(), wire(v))).collect::<serde_json::Map<_, _>>() })
        }
        other => panic!("not used here: {other:?}"),
    }
}

/// What the capturing client saw: the target header, the content type and
/// the JSON body of each request.
type Seen = Arc<Mutex<Vec<(String, String, Value)>>>;

/// An SDK HTTP client that records each request and answers `response`.
#[derive(Debug, Clone)]
struct Capturing {
    seen: Seen,
    response: Value,
}

impl HttpConnector for Capturing {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let header = |name: &str| request.headers().get(name).unwrap_or_default().to_owned();
        let body: Value = serde_json::from_slice(request.body().bytes().unwrap_or_default())
            .expect("the SDK sends JSON");
        self.seen
            .lock()
            .unwrap()
            .push((header("x-amz-target"), header("content-type"), body));
        let body = serde_json::to_vec(&self.response).unwrap();
        HttpConnectorFuture::new(async move {
            let mut resp =
                HttpResponse::new(StatusCode::try_from(200).unwrap(), SdkBody::from(body));
            resp.headers_mut()
                .insert("content-type", "application/x-amz-json-1.0");
            Ok(resp)
        })
    }
}

impl HttpClient for Capturing {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

/// `text` with its `#name` and `:value` placeholders replaced by what the
/// request's maps say (values in their wire form), longest first so that
/// `#n1` never eats into `#n10`.
fn resolved(text: &str, body: &Value) -> String {
    let mut subs: Vec<(String, String)> = Vec::new();
    for (map, render) in [
        ("ExpressionAttributeNames", false),
        ("ExpressionAttributeValues", true),
    ] {
        if let Some(m) = body[map].as_object() {
            for (k, v) in m {
                let with = if render {
                    v.to_string()
                } else {
                    v.as_str().unwrap().to_owned()
                };
                subs.push((k.clone(), with));
            }
        }
    }
    subs.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    let mut out = text.to_owned();
    for (k, v) in subs {
        out = out.replace(&k, &v);
    }
    out
}

#[tokio::test]
async fn search_vectors_request_matches_the_sdk_model() {
    let mug = products().remove(1);
    let item: serde_json::Map<String, Value> = mug
        .to_item()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), wire(v)))
        .collect();
    // The response DynamoDB documents: `SearchResults`, each an `Item`
    // and its `Score`, most similar first; `ConsumedCapacity` a
    // `VectorCapacity`.
    let response = json!({
        "SearchResults": [{ "Item": item, "Score": 0.12 }],
        "ConsumedCapacity": { "VectorSearchRequestBytes": 41714.0 },
    });
    let seen = Seen::default();
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url("http://capture.localhost")
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .http_client(SharedHttpClient::new(Capturing {
            seen: seen.clone(),
            response,
        }))
        .build();
    let db = Db::with_executor(
        SdkExecutor::new(aws_sdk_dynamodb::Client::from_conf(config)),
        "Shop",
    );
    let found = Product::similar("kitchen", &[1.0, 0.5, 0.0])
        .top_k(2)
        .filter(|f| f.price.lt(&20))
        .all(&db)
        .await
        .unwrap();
    // Decoded: the entity and its score.
    assert_eq!(found.len(), 1);
    assert_eq!((&found[0].item, found[0].score), (&mug, 0.12));

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let [(target, content_type, body)] = &seen[..] else {
        panic!("one request: {seen:?}")
    };
    assert_eq!(target, "DynamoDB_20120810.SearchVectors");
    assert_eq!(content_type, "application/x-amz-json-1.0");
    // Only members of SearchVectorsInput.
    let members = [
        "TableName",
        "IndexName",
        "SearchVector",
        "TopK",
        "SearchConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
        "ProjectionExpression",
        "ReturnConsumedCapacity",
    ];
    for k in body.as_object().unwrap().keys() {
        assert!(
            members.contains(&k.as_str()),
            "{k} is not a SearchVectors member"
        );
    }
    assert_eq!(body["TableName"], "Shop");
    assert_eq!(body["IndexName"], "ProductSearch");
    assert_eq!(body["TopK"], 2);
    assert_eq!(body["ReturnConsumedCapacity"], "TOTAL");
    // A list of numbers, each a 32-bit float.
    let vector: Vec<f32> = body["SearchVector"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["N"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(vector, [1.0, 0.5, 0.0]);
    // Equality on the HASH attribute, the inline filter, with placeholders.
    let condition = body["SearchConditionExpression"].as_str().unwrap();
    assert!(!condition.contains("category") && !condition.contains("kitchen"));
    assert_eq!(
        resolved(condition, body),
        r#"(category = {"S":"kitchen"} AND price < {"N":"20"})"#
    );
    the_endpoint_answers_typed_searches_as_the_embedded_backend().await;
}

/// The in-process endpoint's client, and a handle on it for table `Shop`.
async fn endpoint_db() -> Db<SdkExecutor> {
    let db = Db::with_executor(SdkExecutor::new(Endpoint::new().client()), "Shop");
    assert!(db.create_table_if_missing::<Shop>().await.unwrap());
    db
}

/// The endpoint, reached by the SDK executor, answers each typed search as
/// the embedded backend does: same items, same scores, same order.
async fn the_endpoint_answers_typed_searches_as_the_embedded_backend() {
    let remote = endpoint_db().await;
    let local = Db::<Embedded>::in_memory::<Shop>("Shop").unwrap();
    for p in products() {
        remote.put(&p).await.unwrap();
        local.put(&p).await.unwrap();
    }
    for (category, vector, cheap) in [
        ("kitchen", [1.0, 0.0, 0.0], false),
        ("kitchen", [0.0, 1.0, 0.2], true),
        ("living", [0.3, 0.3, 0.3], false),
        ("garden", [1.0, 1.0, 1.0], false),
    ] {
        let search = || {
            let s = Product::similar(category, &vector).top_k(3);
            if cheap {
                s.filter(|f| f.price.between(&5, &20))
            } else {
                s
            }
        };
        let a = search().all(&remote).await.unwrap();
        let b = search().all(&local).await.unwrap();
        assert_eq!(a, b, "{category} {vector:?}");
    }
    // The raw answer: SearchResults with Item and Score, and the capacity
    // asked for.
    let out = remote
        .sdk()
        .search_vectors()
        .table_name("Shop")
        .index_name("ProductSearch")
        .set_search_vector(Some(
            ["1", "0", "0"]
                .map(|n| aws_sdk_dynamodb::types::AttributeValue::N(n.into()))
                .to_vec(),
        ))
        .top_k(2)
        .search_condition_expression("#c = :c")
        .expression_attribute_names("#c", "category")
        .expression_attribute_values(
            ":c",
            aws_sdk_dynamodb::types::AttributeValue::S("kitchen".into()),
        )
        .projection_expression("id, price")
        .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    let results = out.search_results();
    assert_eq!(results.len(), 2);
    let first = results[0].item().unwrap();
    assert_eq!(first["id"], AttributeValue::S("tea".into()));
    assert_eq!(first.len(), 2, "only the projected attributes");
    assert_eq!(results[0].score(), 0.0);
    // 4 bytes x 3 dimensions x TopK 2, plus the two results' sizes.
    let bytes = out
        .consumed_capacity()
        .unwrap()
        .vector_search_request_bytes();
    assert!(bytes.is_some_and(|b| b > 24.0), "{bytes:?}");
}

#[tokio::test]
async fn vector_indexes_are_created_described_updated_and_verified() {
    let db = endpoint_db().await;
    // Described as declared: no drift.
    let described = db.describe().await.unwrap();
    let declared = TableDefinition::of::<Shop>("Shop", Billing::OnDemand);
    assert_eq!(described.vector_indexes, declared.vector_indexes);
    assert!(db.verify::<Shop>().await.unwrap().is_empty());

    // A table created without the vector index drifts, and update_table
    // adds it, indexing the items already stored.
    let db = Db::with_executor(SdkExecutor::new(Endpoint::new().client()), "Shop");
    db.create_table_if_missing::<ShopBefore>().await.unwrap();
    for p in products() {
        db.put(&p).await.unwrap();
    }
    assert_eq!(
        db.verify::<Shop>().await.unwrap(),
        [Drift::MissingIndex("ProductSearch".into())]
    );
    assert!(
        Product::similar("kitchen", &[1.0, 0.0, 0.0])
            .all(&db)
            .await
            .is_err(),
        "no index to search yet"
    );
    let plan = db.update_table::<Shop>(ExtraIndexes::Keep).await.unwrap();
    assert_eq!(plan.created, ["ProductSearch"]);
    assert!(db.verify::<Shop>().await.unwrap().is_empty());
    let found = Product::similar("kitchen", &[1.0, 0.0, 0.0])
        .all(&db)
        .await
        .unwrap();
    assert_eq!(found.len(), 4);
    assert_eq!(found[0].item.id, "tea");
    let t = db
        .sdk()
        .describe_table()
        .table_name("Shop")
        .send()
        .await
        .unwrap();
    let v = &t.table().unwrap().vector_indexes()[0];
    assert_eq!(v.index_status().map(|s| s.as_str()), Some("ACTIVE"));
    assert_eq!(v.item_count(), Some(5));

    // And deletes it when the declaration drops it.
    let plan = db
        .update_table::<ShopBefore>(ExtraIndexes::Delete)
        .await
        .unwrap();
    assert_eq!(plan.deleted, ["ProductSearch"]);
    assert!(db.describe().await.unwrap().vector_indexes.is_empty());

    // A provisioned table with vector indexes is refused before sending.
    let other = Db::with_executor(SdkExecutor::new(Endpoint::new().client()), "Shop");
    let err = other
        .create_table_with::<Shop>(Billing::Provisioned { read: 1, write: 1 })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("on-demand"), "{err}");
}

#[tokio::test]
async fn create_table_validates_vector_indexes_as_dynamodb() {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Projection, ProjectionType,
        ScalarAttributeType, SearchSchemaElement, SearchSchemaElementType,
        VectorAttributeDefinition, VectorDistanceFunction, VectorIndex,
    };
    let client = Endpoint::new().client();
    let index = |dimensions: i64, hash: Option<&str>| {
        VectorIndex::builder()
            .index_name("Similar")
            .vector_attribute(
                VectorAttributeDefinition::builder()
                    .attribute_name("embedding")
                    .build()
                    .unwrap(),
            )
            .dimensions(dimensions)
            .distance_function(VectorDistanceFunction::Cosine)
            .set_search_schema(hash.map(|h| {
                vec![
                    SearchSchemaElement::builder()
                        .attribute_name(h)
                        .search_schema_element_type(SearchSchemaElementType::Hash)
                        .build()
                        .unwrap(),
                ]
            }))
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::All)
                    .build(),
            )
            .build()
            .unwrap()
    };
    let create = |ix: VectorIndex, billing: BillingMode| {
        let mut req = client
            .create_table()
            .table_name("Vectors")
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("PK")
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name("PK")
                    .key_type(KeyType::Hash)
                    .build()
                    .unwrap(),
            )
            .billing_mode(billing.clone())
            .vector_indexes(ix);
        if billing == BillingMode::Provisioned {
            req = req.provisioned_throughput(
                aws_sdk_dynamodb::types::ProvisionedThroughput::builder()
                    .read_capacity_units(1)
                    .write_capacity_units(1)
                    .build()
                    .unwrap(),
            );
        }
        req.send()
    };
    let message = |e: aws_sdk_dynamodb::error::SdkError<_>| {
        let e: aws_sdk_dynamodb::operation::create_table::CreateTableError = e.into_service_error();
        aws_sdk_dynamodb::error::ProvideErrorMetadata::message(&e)
            .unwrap_or_default()
            .to_owned()
    };
    let cases = [
        (
            create(index(3, Some("tenant")), BillingMode::PayPerRequest).await,
            "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions",
        ),
        (
            create(index(0, None), BillingMode::PayPerRequest).await,
            "1 validation error detected: Value '0' at 'vectorIndexes.1.member.dimensions' failed to satisfy constraint: Member must have value greater than or equal to 1",
        ),
        (
            create(index(3, None), BillingMode::Provisioned).await,
            "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables",
        ),
    ];
    for (result, expected) in cases {
        assert_eq!(message(result.unwrap_err()), expected);
    }
    // And a valid one is described back.
    create(index(3, None), BillingMode::PayPerRequest)
        .await
        .unwrap();
    let t = client
        .describe_table()
        .table_name("Vectors")
        .send()
        .await
        .unwrap();
    let v = &t.table().unwrap().vector_indexes()[0];
    assert_eq!(
        (v.index_name(), v.dimensions(), v.item_count()),
        (Some("Similar"), Some(3), Some(0))
    );
}
