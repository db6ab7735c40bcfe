#pragma once

#include <nlohmann/json.hpp>

#include <QTest>

// QCOMPARE for nlohmann::json values: compares and prints their compact text.
#define QCOMPARE_JSON(actual, expected)                                                                      \
    QCOMPARE(QString::fromStdString(nlohmann::json(actual).dump()),                                          \
             QString::fromStdString(nlohmann::json(expected).dump()))
