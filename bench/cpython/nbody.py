"""nbody.py - five bodies under gravity, advanced in small time steps:
float arithmetic on tuples and lists of coordinates, unpacked into local
variables as such code usually is.  A workload of
bench/quality/rediscover_cpython.sh."""
import sys


def make_system():
    solar_mass = 39.47841760435743
    days = 365.24
    bodies = [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], solar_mass),
        ([4.84, -1.16, -0.10], [0.00166 * days, 0.00770 * days, -0.0000690 * days],
         0.000954 * solar_mass),
        ([8.34, 4.12, -0.40], [-0.00276 * days, 0.00499 * days, 0.0000230 * days],
         0.000285 * solar_mass),
        ([12.89, -15.11, -0.22], [0.00296 * days, 0.00237 * days, -0.0000296 * days],
         0.0000436 * solar_mass),
        ([15.37, -25.91, 0.17], [0.00268 * days, 0.00162 * days, -0.0000951 * days],
         0.0000515 * solar_mass),
    ]
    pairs = [(bodies[i], bodies[j]) for i in range(len(bodies)) for j in range(i + 1, len(bodies))]
    return bodies, pairs


def advance(bodies, pairs, dt, steps):
    for _ in range(steps):
        for (p1, v1, m1), (p2, v2, m2) in pairs:
            dx, dy, dz = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
            mag = dt * (dx * dx + dy * dy + dz * dz) ** -1.5
            b1, b2 = m1 * mag, m2 * mag
            v1[0] -= dx * b2
            v1[1] -= dy * b2
            v1[2] -= dz * b2
            v2[0] += dx * b1
            v2[1] += dy * b1
            v2[2] += dz * b1
        for p, v, _m in bodies:
            vx, vy, vz = v
            p[0] += dt * vx
            p[1] += dt * vy
            p[2] += dt * vz


def energy(bodies, pairs):
    e = 0.0
    for (p1, _v1, m1), (p2, _v2, m2) in pairs:
        dx, dy, dz = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
        e -= m1 * m2 / (dx * dx + dy * dy + dz * dz) ** 0.5
    for _p, (vx, vy, vz), m in bodies:
        e += m * (vx * vx + vy * vy + vz * vz) / 2.0
    return e


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    bodies, pairs = make_system()
    before = energy(bodies, pairs)
    advance(bodies, pairs, 0.01, steps)
    print("%.9f %.9f" % (before, energy(bodies, pairs)))
