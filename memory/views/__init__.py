"""What memory hands out: the model's context (``context``, contract §7), the clients'
DTOs (``hydration``, §9) and the field guard every DTO passes on its way out (``guard``)."""
