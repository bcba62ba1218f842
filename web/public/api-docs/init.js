// Starts Swagger UI on the API's own OpenAPI document (the API reference page, GET /api/v2/docs).
/* global SwaggerUIBundle */
window.ui = SwaggerUIBundle({
  url: '/api/v2/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
