import os
from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    database_url: str = "sqlite:///./dev.db"
    secret_key: str = os.environ.get("SECRET_KEY", "")
    access_token_expire_minutes: int = 30
    api_key_header: str = "X-API-Key"
    password_hash_rounds: int = 12

    def token_for(self, user_id: int) -> str:
        token = create_access_token(subject=str(user_id), secret=self.secret_key)
        return token


settings = Settings()
password = getpass.getpass("Password: ")
api_key = request.headers.get(settings.api_key_header)
