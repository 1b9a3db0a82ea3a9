variable "db_password" {
  type      = string
  sensitive = true
}

resource "aws_db_instance" "main" {
  identifier        = "app-prod"
  engine            = "postgres"
  engine_version    = "16.3"
  instance_class    = "db.t4g.medium"
  username          = "app"
  password          = var.db_password
  storage_encrypted = true
}

output "endpoint" { value = aws_db_instance.main.endpoint }
