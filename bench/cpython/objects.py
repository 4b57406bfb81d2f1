"""objects.py - object-heavy Python: small classes, attribute access, method
calls, properties and inheritance (a particle system stepping in 2-D).
A workload of bench/quality/rediscover_cpython.sh."""
import sys


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def add(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def scale(self, k):
        return Vec(self.x * k, self.y * k)

    @property
    def norm2(self):
        return self.x * self.x + self.y * self.y


class Particle:
    def __init__(self, pos, vel, mass):
        self.pos = pos
        self.vel = vel
        self.mass = mass

    def step(self, dt, gravity):
        self.vel = self.vel.add(gravity.scale(dt))
        self.pos = self.pos.add(self.vel.scale(dt))
        if self.pos.y < 0:
            self.pos.y = -self.pos.y
            self.vel.y = -self.vel.y * 0.9


class HeavyParticle(Particle):
    def step(self, dt, gravity):
        super().step(dt, gravity.scale(2))


def main(n, steps):
    parts = [(HeavyParticle if i % 3 == 0 else Particle)(Vec(i, 10 + i % 7), Vec(1, 0), 1 + i % 5)
             for i in range(n)]
    g = Vec(0, -9.8)
    for _ in range(steps):
        for p in parts:
            p.step(0.01, g)
    energy = sum(p.mass * p.vel.norm2 for p in parts)
    print("%.6f" % energy)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300, 100)
