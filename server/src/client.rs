//! The in-process way in: an SDK HTTP client whose connector hands each
//! request to [`Endpoint::handle`](crate::Endpoint::handle).

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;

use crate::endpoint::Endpoint;

#[derive(Debug, Clone)]
struct InProcess(Endpoint);

impl HttpConnector for InProcess {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let ep = self.0.clone();
        let target = request.headers().get("x-amz-target").map(str::to_owned);
        let body = request
            .body()
            .bytes()
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        HttpConnectorFuture::new(async move {
            let r = ep.handle(target.as_deref(), &body).await;
            let status = StatusCode::try_from(r.status)
                .unwrap_or_else(|_| StatusCode::try_from(400).expect("400 is a status"));
            let mut resp = HttpResponse::new(status, SdkBody::from(r.body));
            resp.headers_mut()
                .insert("content-type", "application/x-amz-json-1.0");
            resp.headers_mut().insert("x-amzn-requestid", r.request_id);
            resp.headers_mut()
                .insert("x-amz-crc32", r.crc32.to_string());
            Ok(resp)
        })
    }
}

impl HttpClient for InProcess {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

pub(crate) fn client(ep: Endpoint) -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url("http://in-process.localhost")
        .credentials_provider(Credentials::new("test", "test", None, None, "in-process"))
        .http_client(SharedHttpClient::new(InProcess(ep)))
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}
